/**
 * The names of a transport's streams: `<prefix>jobs:<region>` and `<prefix>results:<region>`.
 * The prefix lets deployments or tests share a Redis.
 */

export interface StreamKeys {
  readonly prefix: string
  readonly jobsKey: (region: string) => string
  /** What every results stream's name starts with; the rest is its region. */
  readonly resultsPrefix: string
  readonly resultsKey: (region: string) => string
}

export const makeStreamKeys = (prefix: string): StreamKeys => {
  const jobsKey = (region: string) => `${prefix}jobs:${region}`
  const resultsPrefix = `${prefix}results:`
  const resultsKey = (region: string) => `${resultsPrefix}${region}`
  return { prefix, jobsKey, resultsPrefix, resultsKey }
}

/** `*`, `?`, `[`, `]` and `\` match themselves in a SCAN pattern once escaped. */
export const globEscape = (text: string) => text.replace(/[*?[\]\\]/g, "\\$&")
