/**
 * Setup of the "unit" Vitest project (test/**\/*.unit.test.ts): such tests need no PostgreSQL,
 * Redis or Chromium, and one that reaches for them anyway fails at once instead of passing on a
 * machine that happens to run them. The test helpers' addresses point where nothing listens, and
 * a connection to PostgreSQL's or Redis's usual port is refused.
 */
import net from "node:net"

process.env.TEST_DATABASE_URL = "postgres://postgres@127.0.0.1:1/unit-tests-use-no-postgresql"
process.env.TEST_REDIS_URL = "redis://127.0.0.1:1"
process.env.CHROMIUM_PATH = "/nonexistent/unit-tests-use-no-chromium"

const forbiddenPorts = new Map([[5432, "PostgreSQL"], [6379, "Redis"]])
const guarded = Symbol.for("status-page-service/unitSetup")
const prototype = net.Socket.prototype as net.Socket & { [guarded]?: true }

if (prototype[guarded] !== true) {
  prototype[guarded] = true
  const connect = prototype.connect
  prototype.connect = function(this: net.Socket, ...args: Array<unknown>) {
    // net.connect hands over its already normalised arguments as one array.
    const first = Array.isArray(args[0]) ? args[0][0] : args[0]
    const port = Number(typeof first === "object" && first !== null ? (first as { port?: unknown }).port : first)
    const service = forbiddenPorts.get(port)
    if (service !== undefined) {
      const error = new Error(`a unit test connected to ${service} (port ${port}); name it *.test.ts instead`)
      process.nextTick(() => this.destroy(error))
      return this
    }
    return (connect as (...args: Array<unknown>) => net.Socket).apply(this, args)
  } as typeof prototype.connect
}
