import { Redis } from "ioredis"
import { spawn } from "node:child_process"
import * as http from "node:http"
const r = new Redis("redis://127.0.0.1:6379")
const prefix = "dbg2:"
let requests = 0
const server = http.createServer((_q, s) => { if (++requests > 5) s.end("ok") })
await new Promise<void>((res) => server.listen(0, "127.0.0.1", res))
const port = (server.address() as any).port
const start = (name: string) => {
  const c = spawn("node_modules/.bin/tsx", ["probes/main.ts"], { env: { PATH: process.env.PATH!, REDIS_URL: "redis://127.0.0.1:6379", REDIS_STREAM_PREFIX: prefix, PROBE_REGION: "eu", PROBE_NAME: name, QUEUE_CLAIM_IDLE_MS: "1500", PROBE_CONCURRENCY: "10" }, stdio: ["ignore", "inherit", "inherit"] })
  return c
}
const a = start("doomed")
await new Promise((res) => setTimeout(res, 2500))
const now = Date.now()
for (let i = 0; i < 5; i++) await r.xadd(prefix + "jobs", "*", "job", JSON.stringify({ id: `m${i}:${now}`, monitorId: `m${i}`, type: "http", url: `http://127.0.0.1:${port}/`, timeoutMs: 20000, expectedStatusCode: 200, intervalSeconds: 60, scheduledAt: now }))
await new Promise((res) => setTimeout(res, 500))
console.log("requests", requests)
const b = start("sibling")
await new Promise((res) => setTimeout(res, 2500))
console.log("pending", JSON.stringify(await r.xpending(prefix + "jobs", "eu")))
a.kill("SIGKILL")
await new Promise((res) => setTimeout(res, 4000))
console.log("pending", JSON.stringify(await r.xpending(prefix + "jobs", "eu")), "results", await r.xlen(prefix + "results"), "requests", requests)
console.log(JSON.stringify(await r.xpending(prefix + "jobs", "eu", "-", "+", 10)))
b.kill("SIGKILL")
await r.del(prefix + "jobs", prefix + "results"); await r.quit(); server.closeAllConnections(); server.close()
