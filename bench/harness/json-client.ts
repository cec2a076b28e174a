import http from 'node:http';

export interface JsonResponse {
  status: number;
  body: any;
}

/** A tiny keep-alive JSON client: the driver must cost the machine as little CPU as it can. */
export function jsonClient(baseUrl: string, maxSockets: number) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return {
    request(method: string, path: string, apiKey: string, body?: unknown): Promise<JsonResponse> {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            method,
            path,
            agent,
            headers: {
              'x-api-key': apiKey,
              ...(payload
                ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
                : {}),
            },
          },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (c: Buffer) => parts.push(c));
            res.on('end', () => {
              const text = Buffer.concat(parts).toString();
              let parsed: unknown = text;
              try {
                parsed = JSON.parse(text);
              } catch {
                // Keep the text.
              }
              resolve({ status: res.statusCode ?? 0, body: parsed });
            });
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}
