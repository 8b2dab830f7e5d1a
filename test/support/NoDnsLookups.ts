/**
 * Preloaded into a child process (`--import`) by a test that must show the child looked no name
 * up: every DNS lookup fails at once, before a query leaves the machine, and says so on stderr.
 */
import dns from "node:dns"

const refuse = (hostname: string) => {
  const message = `DNS lookup of ${hostname} refused by the test`
  process.stderr.write(`${message}\n`)
  return Object.assign(new Error(message), { code: "ENOTFOUND" })
}

// net.connect, and so fetch, reads dns.lookup when it connects.
dns.lookup = ((hostname: string, ...rest: Array<unknown>) => {
  const callback = rest.at(-1) as (error: Error) => void
  process.nextTick(() => callback(refuse(hostname)))
}) as typeof dns.lookup
dns.promises.lookup = ((hostname: string) => Promise.reject(refuse(hostname))) as typeof dns.promises.lookup
