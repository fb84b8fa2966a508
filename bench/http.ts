/** A small keep-alive HTTP/JSON client for the load generator (node:http, no deps). */
import http from 'node:http';

export class JsonClient {
  private readonly agent: http.Agent;

  constructor(
    readonly port: number,
    readonly auth: string,
    maxSockets = 64,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  /** POSTs a JSON text body; resolves with the parsed envelope, rejects on a non-2xx status. */
  request<T = unknown>(
    method: string,
    path: string,
    body?: string,
    timeoutMs = 30_000,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = { authorization: this.auth };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = http.request(
        { host: '127.0.0.1', port: this.port, method, path, headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (!res.statusCode || res.statusCode >= 300) {
              reject(new Error(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 300)}`));
              return;
            }
            try {
              resolve(JSON.parse(text) as T);
            } catch (err) {
              reject(err);
            }
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  post<T = unknown>(path: string, body: string, timeoutMs?: number): Promise<T> {
    return this.request<T>('POST', path, body, timeoutMs);
  }

  close(): void {
    this.agent.destroy();
  }
}
