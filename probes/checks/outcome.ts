/** Small helpers shared by the checks to report what they measured. */
import { errorMaxLength } from "../../src/domain/CheckJob.js"

/** Milliseconds rounded to 0.01 ms: finer digits are noise. */
export const roundMs = (ms: number) => Math.round(ms * 100) / 100

/** A socket error as one line, with its code (e.g. `ECONNREFUSED`) when node gives one. */
export const describeError = (error: Error & { code?: string | undefined }) =>
  error.code !== undefined && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message

/** Splits `host:port`, `[v6]:port` or a URL's authority; the port falls back to `defaultPort`. */
export const parseHostPort = (
  target: string,
  defaultPort: number | undefined
): { host: string; port: number } | undefined => {
  const match = /^(?:\[([^\]]+)\]|([^:/\s]+))(?::(\d{1,5}))?$/.exec(target)
  if (match === null) return undefined
  const host = match[1] ?? match[2]!
  const port = match[3] === undefined ? defaultPort : Number(match[3])
  if (port === undefined || port < 1 || port > 65535) return undefined
  return { host, port }
}

/** `error` cut to the `errorMaxLength` ingest accepts (ending in `…` when cut), never inside a surrogate pair. */
export const capError = (error: string): string => {
  if (error.length <= errorMaxLength) return error
  let end = errorMaxLength - 1
  const last = error.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${error.slice(0, end)}…`
}
