import type WebSocket from 'ws';
import type { ProviderContext } from '../provider.ts';

/** Frames one relay exchange may receive; beyond this the relay is dropped. */
const MAX_FRAME_BYTES = 1024 * 1024;
export const RELAY_TIMEOUT_MS = 10_000;

/** `ws` (and its dependencies) is loaded with the first relay connection, not at start-up. */
let wsModule: Promise<typeof import('ws')> | undefined;
const loadWs = () => (wsModule ??= import('ws'));

/** Why a relay URL is not connected to: the outbound policy's reason, or null. */
export function relayRefusal(ctx: Pick<ProviderContext, 'outbound'>, relay: string): string | null {
  const url = new URL(relay);
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') return `the scheme "${url.protocol}" is not ws or wss`;
  // The same checks as an http(s) request to the same host and port.
  url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  return ctx.outbound.refusal(url.toString())?.message ?? null;
}

/**
 * Opens `relay`, sends `messages`, and hands every answer to `onMessage` until it returns a
 * result (or the time runs out, which gives `onTimeout()`). Connections go through the outbound
 * policy: literal addresses are checked before, names when they are resolved.
 */
export async function relayExchange<T>(
  ctx: Pick<ProviderContext, 'outbound' | 'signal'>,
  relay: string,
  messages: unknown[],
  onMessage: (message: unknown[]) => T | undefined,
  onTimeout: () => T,
  timeoutMs = RELAY_TIMEOUT_MS,
): Promise<T> {
  const refused = relayRefusal(ctx, relay);
  if (refused) throw Object.assign(new Error(refused), { code: 'outbound_refused' });
  const { WebSocket: Client } = await loadWs();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const socket: WebSocket = new Client(relay, {
      lookup: ctx.outbound.socketLookup as never,
      handshakeTimeout: timeoutMs,
      maxPayload: MAX_FRAME_BYTES,
      followRedirects: false,
      perMessageDeflate: false,
    });
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ctx.signal?.removeEventListener('abort', abort);
      socket.removeAllListeners('message');
      socket.on('error', () => {});
      socket.terminate();
      fn();
    };
    const timer = setTimeout(() => finish(() => resolve(onTimeout())), timeoutMs);
    const abort = () => finish(() => reject(new Error('aborted')));
    ctx.signal?.addEventListener('abort', abort);
    socket.on('open', () => {
      for (const message of messages) socket.send(JSON.stringify(message));
    });
    socket.on('message', (data) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(data));
      } catch {
        return;
      }
      if (!Array.isArray(parsed)) return;
      const result = onMessage(parsed);
      if (result !== undefined) finish(() => resolve(result));
    });
    socket.on('error', (error) => finish(() => reject(error)));
    socket.on('close', () => finish(() => reject(Object.assign(new Error('the relay closed the connection'), { code: 'ECONNRESET' }))));
  });
}
