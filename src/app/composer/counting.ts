import type { components } from '../../client/api-types.ts';
import { countGraphemes } from '../../content/graphemes.ts';

export type ChannelSettings = components['schemas']['ChannelSettings'];
export type TextLimit = ChannelSettings['textLimit'];

/**
 * The text's length in the platform's own unit (GET /integration-settings/:id `textLimit.unit`):
 * graphemes (what a person sees as one character: an emoji with its modifiers is one), characters
 * (Unicode code points) or UTF-8 bytes.
 */
export function countText(text: string, unit: TextLimit['unit']): number {
  if (unit === 'bytes') return new TextEncoder().encode(text).length;
  if (unit === 'characters') return [...text].length;
  return typeof Intl.Segmenter === 'function' ? countGraphemes(text) : [...text].length;
}

const UNIT_WORDS: Record<TextLimit['unit'], string> = { graphemes: 'characters', characters: 'characters', bytes: 'bytes' };

/** "12 / 500 characters", as the counter says it. */
export function counterText(used: number, limit: TextLimit): string {
  return `${used} / ${limit.max} ${UNIT_WORDS[limit.unit]}`;
}
