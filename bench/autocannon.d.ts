// The small part of autocannon's API the benchmarks use (the package ships no types).
declare module "autocannon" {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** The sequence each connection sends; setupRequest may change a request (its body) before it is sent. */
    requests?: {
      method?: string;
      path?: string;
      body?: string;
      headers?: Record<string, string>;
      setupRequest?: (request: { body?: string; path?: string }) => { body?: string; path?: string };
    }[];
    connections?: number;
    duration?: number;
    timeout?: number;
  }
  interface Result {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number; max: number; mean: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
