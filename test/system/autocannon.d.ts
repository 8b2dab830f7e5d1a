/** The part of autocannon's programmatic API the load generator uses (the package ships no types). */
declare module "autocannon" {
  interface Histogram {
    readonly average: number
    readonly p50: number
    readonly p99: number
    readonly max: number
    readonly total?: number
  }
  interface Result {
    readonly requests: Histogram
    readonly latency: Histogram
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
    readonly statusCodeStats: Record<string, { count: number }>
  }
  interface Options {
    readonly url: string | ReadonlyArray<string>
    readonly connections: number
    readonly duration: number
    readonly requests?: ReadonlyArray<{ readonly method: string; readonly path: string }>
  }
  export default function autocannon(options: Options): Promise<Result>
}
