import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { TestApp } from '../helpers/app.ts';

/** Starts the app on a loopback port (once) and returns the MCP endpoint's URL. */
export async function mcpUrl(t: TestApp): Promise<URL> {
  const address = t.app.server.address();
  if (address && typeof address === 'object') return new URL(`http://127.0.0.1:${address.port}/mcp-oauth`);
  const origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return new URL(`${origin}/mcp-oauth`);
}

/** The SDK's own client, connected over real HTTP with `authorization` sent on every request. */
export async function connectClient(url: URL, authorization: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'herald-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization, ...headers } } });
  await client.connect(transport);
  return client;
}
