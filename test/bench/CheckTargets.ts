/**
 * The benchmarks' check targets: a bare `node:http` server in a process of its own (so its CPU
 * time is not the measured processes'), on 127.0.0.1. A path is `/<tag>/m<n>`: the server
 * answers 503 to every hundredth monitor (`n % 100 === 99`, 1 % failing, so monitors go down
 * and components change status) and 200 `ok` to the others, and counts the requests and the
 * distinct paths of each tag. Those counts are the benchmarks' oracle of checks done,
 * independent of what the service says or stores.
 */
import { spawn } from "node:child_process"

const server = `
const tags = new Map()
const server = require("node:http").createServer((request, response) => {
  const [, tag = "", name = ""] = request.url.split("/")
  let counts = tags.get(tag)
  if (!counts) tags.set(tag, counts = { requests: 0, seen: new Set() })
  counts.requests++
  counts.seen.add(name)
  request.resume()
  if (Number(name.slice(1)) % 100 === 99) {
    response.statusCode = 503
    response.end("unavailable")
  } else response.end("ok")
})
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }))
process.on("message", ({ id, tag }) => {
  const counts = tags.get(tag)
  process.send({ id, requests: counts ? counts.requests : 0, distinct: counts ? counts.seen.size : 0 })
})
process.on("disconnect", () => process.exit(0))
`

export interface TargetCounts {
  /** Requests received for the tag so far. */
  readonly requests: number
  /** Distinct paths (monitors) of the tag requested so far. */
  readonly distinct: number
}

export interface CheckTargets {
  readonly pid: number
  /** The URL of the tag's monitors without the number: monitor `n` is `<prefix>m<n>`. */
  readonly prefix: (tag: string) => string
  /** The URL of monitor `n` of a tag. */
  readonly url: (tag: string, n: number) => string
  readonly counts: (tag: string) => Promise<TargetCounts>
  readonly stop: () => void
}

export const startCheckTargets = () =>
  new Promise<CheckTargets>((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", server], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
    const waiting = new Map<number, (counts: TargetCounts) => void>()
    let next = 0
    child.once("error", reject)
    child.on("message", (message: { port?: number; id?: number } & TargetCounts) => {
      if (message.port !== undefined) {
        const base = `http://127.0.0.1:${message.port}`
        resolve({
          pid: child.pid!,
          prefix: (tag) => `${base}/${tag}/`,
          url: (tag, n) => `${base}/${tag}/m${n}`,
          counts: (tag) =>
            new Promise((answer) => {
              const id = next++
              waiting.set(id, answer)
              child.send({ id, tag })
            }),
          stop: () => child.kill("SIGTERM")
        })
      } else if (message.id !== undefined) {
        waiting.get(message.id)?.(message)
        waiting.delete(message.id)
      }
    })
  })
