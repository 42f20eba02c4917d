import * as z from 'zod';
import { formText, readForm } from './forms.ts';
import { html } from './html.ts';
import { layout, type PageChrome } from './layout.ts';

/** The field a destructive form sends once the person has confirmed, on the confirmation page. */
export const CONFIRM_FIELD = 'confirm';

const confirmForm = z.object({ [CONFIRM_FIELD]: formText(10) });

/** Whether a posted form comes from a confirmation page (see `confirmationPage`). */
export function confirmed(body: unknown): boolean {
  return readForm(confirmForm, body)[CONFIRM_FIELD] === 'yes';
}

/**
 * The step between a destructive button and its action, without JavaScript: the button posts
 * (with its CSRF token) to the action's URL, which answers with this page until the form comes
 * back with `confirm=yes`. Cancel is a plain link back.
 */
export function confirmationPage(input: {
  chrome: PageChrome;
  csrf: string;
  /** The question, e.g. 'Revoke the key “ci”?' */
  title: string;
  /** What happens, in a sentence or two. */
  consequence: string;
  /** Where the form posts: the action's own URL. */
  action: string;
  /** The confirming button's label, e.g. 'Revoke'. */
  button: string;
  back: string;
  /** Fields of the first form to send again with the confirmation (e.g. a comment typed beside the button). */
  fields?: Record<string, string> | undefined;
}): string {
  const fields = Object.entries(input.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const body = html`<h1 id="confirm-title">${input.title}</h1>
<p>${input.consequence}</p>
<form method="post" action="${input.action}">
  <input type="hidden" name="_csrf" value="${input.csrf}"><input type="hidden" name="${CONFIRM_FIELD}" value="yes">${fields}
  <div class="actions"><button type="submit" class="danger" id="confirm">${input.button}</button> <a class="button secondary" href="${input.back}" id="confirm-cancel">Go back</a></div>
</form>`;
  return layout(input.title, body, input.chrome);
}
