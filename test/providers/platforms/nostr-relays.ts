import type { AddressInfo } from 'node:net';
import NostrMini from 'nostrmini';
import { verifyEvent, type Event } from 'nostr-tools/pure';
import WebSocket, { WebSocketServer } from 'ws';
import { closeServer, startFakeHttp } from '../../helpers/fake-http.ts';

/** nostrmini, an in-memory relay from npm (NIP-01 EVENT/REQ/CLOSE, answers OK), on a free loopback port. */
export async function startMiniRelay() {
  // A CommonJS module with `exports.default`: the class is at .default or at the top, by loader.
  type MiniRelay = new () => { listen(port: number): import('node:http').Server };
  const module = NostrMini as unknown as MiniRelay & { default?: MiniRelay };
  const server = new (module.default ?? module)();
  const listener = server.listen(0);
  await new Promise<void>((resolve) => (listener.listening ? resolve() : listener.once('listening', () => resolve())));
  const url = `ws://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  return {
    url,
    close: () => closeServer(listener),
  };
}

/**
 * A relay of our own that checks each event's id and signature (NIP-01) and then answers
 * `["OK", id, false, "<prefix>: <reason>"]`, as a relay that refuses this author does.
 */
export async function startRefusingRelay(reason = 'blocked: this relay only takes notes from its members') {
  // A plain request (no WebSocket upgrade) gets 426 Upgrade Required.
  const http = await startFakeHttp(() => ({ status: 426, body: { error: 'a relay speaks WebSocket' } }));
  const wss = new WebSocketServer({ server: http.server });
  const received: Event[] = [];
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as unknown[];
      if (message[0] === 'REQ') socket.send(JSON.stringify(['EOSE', message[1]]));
      if (message[0] !== 'EVENT') return;
      const event = message[1] as Event;
      received.push(event);
      socket.send(JSON.stringify(['OK', event.id, false, verifyEvent(event) ? reason : 'invalid: bad signature']));
    });
  });
  return {
    url: http.url.replace(/^http:/, 'ws:'),
    received,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await http.close();
    },
  };
}

/** The events a relay holds for `filter`, read as a client would (REQ until EOSE). */
export async function query(relay: string, filter: Record<string, unknown>): Promise<Event[]> {
  const socket = new WebSocket(relay);
  const events: Event[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.on('open', () => socket.send(JSON.stringify(['REQ', 'q', filter])));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as unknown[];
      if (message[0] === 'EVENT') events.push(message[2] as Event);
      if (message[0] === 'EOSE') resolve();
    });
    socket.on('error', reject);
  });
  socket.close();
  return events;
}

/** Sends one event as a client would and gives the relay's OK. */
export async function publishDirect(relay: string, event: Event): Promise<unknown[]> {
  const socket = new WebSocket(relay);
  const answer = await new Promise<unknown[]>((resolve, reject) => {
    socket.on('open', () => socket.send(JSON.stringify(['EVENT', event])));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as unknown[];
      if (message[0] === 'OK') resolve(message);
    });
    socket.on('error', reject);
  });
  socket.close();
  return answer;
}
