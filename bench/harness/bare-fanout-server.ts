/**
 * Scenario 7's reference: a bare `node:http` server that fans events out to SSE clients and WebSocket subscribers
 * in Ferry's wire format, with nothing else (no database, no auth, no framework). `POST /publish` takes an event's
 * `data`, stamps `occurredAt` and an id, serialises the frame once per transport and writes it to every client,
 * which is the least any fan-out must do. Ferry's fan-out p99 is reported as a ratio to this server's, measured
 * in the same run with the same clients and the same event rate.
 */
import http from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';

const port = Number(process.env.PORT ?? 0);
const sse = new Set<http.ServerResponse>();
const sockets = new Set<WebSocket>();
let nextId = 1;

function publish(type: string, data: unknown) {
  const event = { id: nextId++, type, occurredAt: new Date().toISOString(), data };
  const json = JSON.stringify(event);
  const frame = Buffer.from(`id: ${event.id}\nevent: ${type}\ndata: ${json}\n\n`);
  const message = Buffer.from(`{"op":"event","channel":"public","event":${json}}`);
  for (const res of sse) res.write(frame);
  for (const socket of sockets) socket.send(message);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') {
    res.end('ok');
  } else if (req.method === 'GET' && req.url?.startsWith('/api/public/stream')) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.write('retry: 2000\n: connected\n\n');
    sse.add(res);
    req.on('close', () => sse.delete(res));
  } else if (req.method === 'POST' && req.url === '/publish') {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString()) as { type: string; data: unknown };
      publish(body.type, body.data);
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"status":"success"}');
    });
  } else {
    res.writeHead(404);
    res.end();
  }
});

const wss = new WebSocketServer({ server, path: '/ws' });
wss.on('connection', (socket) => {
  socket.on('message', (raw) => {
    const message = JSON.parse(String(raw)) as { op: string; channels?: string[] };
    if (message.op === 'subscribe') {
      sockets.add(socket);
      socket.send(JSON.stringify({ op: 'subscribed', channels: message.channels ?? [] }));
    }
  });
  socket.on('close', () => sockets.delete(socket));
});

server.listen(port, '127.0.0.1', () => process.stdout.write(`bare fan-out listening on ${port}\n`));
const stop = () => {
  for (const res of sse) res.end();
  for (const socket of sockets) socket.terminate();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
