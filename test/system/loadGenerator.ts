/**
 * The load generator of the system suite's load scenario, in a process of its own so it does
 * not share an event loop with anything it measures: autocannon spreads LOAD_CONNECTIONS over
 * the LOAD_URLS (comma list) for LOAD_SECONDS, each connection cycling through LOAD_PATHS (asking
 * for gzip, as browsers do), and the result (autocannon's JSON) is printed on stdout.
 */
import autocannon from "autocannon"

const urls = process.env.LOAD_URLS!.split(",")
const paths = process.env.LOAD_PATHS!.split(",")
const result = await autocannon({
  url: urls,
  connections: Number(process.env.LOAD_CONNECTIONS),
  duration: Number(process.env.LOAD_SECONDS),
  // As browsers and CDNs ask: responses of 1 kB or more come gzipped.
  requests: paths.map((path) => ({ method: "GET", path, headers: { "accept-encoding": "gzip" } }))
})
process.stdout.write(JSON.stringify({
  requests: result.requests,
  latency: result.latency,
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  statusCodeStats: result.statusCodeStats
}))
