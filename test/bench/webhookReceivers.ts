/**
 * The webhook benchmark's receivers, run as a child process of `test/bench/webhooks.ts` so that
 * the dispatcher and the bare loop it is compared with share their process with nothing else,
 * as in production where receivers are elsewhere. Loopback HTTP servers answer every POST with
 * 204 and note when its body arrived, keyed by the `data.title` of the event in the body.
 *
 * Messages (IPC): `{ type: "start", count }` → `{ type: "ready", urls }`;
 * `{ type: "await", id, keys, perKey, timeoutMs }` → `{ type: "receipts", id, receipts }` once every
 * key has `perKey` receipts (or the time is up), with the arrival times (ms since the epoch) of
 * those keys. The parent hears nothing while deliveries arrive, so counting costs it nothing.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

type Message =
  | { readonly type: "start"; readonly count: number }
  | {
    readonly type: "await"
    readonly id: number
    readonly keys: ReadonlyArray<string>
    readonly perKey: number
    readonly timeoutMs: number
  }

const receipts = new Map<string, Array<number>>()

const receive = (request: http.IncomingMessage, response: http.ServerResponse) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const at = performance.timeOrigin + performance.now()
    const key = JSON.parse(Buffer.concat(chunks).toString("utf8")).data.title as string
    const times = receipts.get(key)
    if (times === undefined) receipts.set(key, [at])
    else times.push(at)
    response.writeHead(204)
    response.end()
  })
}

const start = (count: number) =>
  Promise.all(Array.from({ length: count }, () =>
    new Promise<string>((resolve) => {
      const server = http.createServer(receive)
      server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
    })))

const awaitReceipts = (message: Extract<Message, { type: "await" }>) => {
  const deadline = Date.now() + message.timeoutMs
  const check = () => {
    const done = message.keys.every((key) => (receipts.get(key)?.length ?? 0) >= message.perKey)
    if (!done && Date.now() < deadline) return void setTimeout(check, 5)
    process.send!({
      type: "receipts",
      id: message.id,
      receipts: Object.fromEntries(message.keys.map((key) => [key, receipts.get(key) ?? []]))
    })
  }
  check()
}

process.on("message", (message: Message) => {
  switch (message.type) {
    case "start":
      void start(message.count).then((urls) => process.send!({ type: "ready", urls }))
      return
    case "await":
      return awaitReceipts(message)
  }
})
// The parent going away ends the receivers.
process.on("disconnect", () => process.exit(0))
