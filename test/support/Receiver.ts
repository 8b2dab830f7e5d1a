/**
 * A real HTTP receiver on a random loopback port for webhook deliveries: it records every
 * request (headers and exact body) and answers as the test tells it to.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

import { Effect } from "effect"

export interface ReceivedRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export type Answer = (request: ReceivedRequest, response: ServerResponse, raw: IncomingMessage) => void

/** Answers with `status` and a small body. */
export const answerWith = (status: number, headers: Record<string, string> = {}): Answer => (_, response) => {
  response.writeHead(status, { "content-type": "text/plain", ...headers })
  response.end(`answered ${status}`)
}

/** Never answers (until the server closes). */
export const hang: Answer = () => {}

/** Drops the TCP connection without answering. */
export const resetConnection: Answer = (_, __, raw) => {
  raw.socket.resetAndDestroy()
}

export const receiver = (answer: Answer) =>
  Effect.acquireRelease(
    Effect.callback<{ url: string; received: Array<ReceivedRequest>; close: () => void }>((resume) => {
      const received: Array<ReceivedRequest> = []
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const entry = {
            method: request.method ?? "",
            path: request.url ?? "",
            headers: request.headers,
            body: Buffer.concat(chunks).toString("utf8")
          }
          received.push(entry)
          answer(entry, response, request)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({
          url: `http://127.0.0.1:${port}/hook`,
          received,
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        }))
      })
    }),
    ({ close }) => Effect.sync(close)
  )
