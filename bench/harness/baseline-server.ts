/**
 * Scenario 1: the bare baseline. A Fastify 5 server with one route returning a small JSON body, started as its
 * own process exactly like Ferry (same Node, tsx loader, pino at the same level, 127.0.0.1), so every Ferry
 * scenario can be read as a fraction of what the framework alone does on this machine.
 */
import Fastify from 'fastify';
import { pino } from 'pino';

const port = Number(process.env.PORT ?? 0);
const level = process.env.LOG_LEVEL ?? 'warn';
const app = Fastify({ loggerInstance: pino({ level }) });
app.get('/baseline', async () => ({ status: 'success', data: { ok: true, service: 'baseline' } }));
await app.listen({ host: '127.0.0.1', port });
process.stdout.write(`baseline listening on ${port}\n`);
const stop = async () => {
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
