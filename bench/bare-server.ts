// A bare Fastify route answering a fixed JSON body: the floor the real API is measured against.
import Fastify from 'fastify';

const body = process.env.BARE_BODY ?? '[]';
const app = Fastify({ logger: false });
app.get('/public/v1/integrations', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
