declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec | null | undefined;
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  }
  interface Options extends RequestSpec {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    requests?: RequestSpec[];
  }
  interface Result {
    duration: number;
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
  }
  /** The run: awaited for its result; emits `response` as each response arrives. */
  interface Instance extends Promise<Result> {
    on(event: 'response', listener: (...args: unknown[]) => void): Instance;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
