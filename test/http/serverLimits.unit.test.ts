/**
 * What the Node server refuses before the app: a declared body over 1 MB (413, unread, without
 * a `100 Continue`), and clients too slow to finish their request or silent on an idle
 * connection (408 or closed). The time-outs are the production ones scaled down, so the suite
 * takes seconds; each test would wait for Node's defaults (a minute or more) without them.
 */
import { request } from "node:http"
import type { AddressInfo } from "node:net"
import { connect, type Socket } from "node:net"

import { describe, expect, it } from "@effect/vitest"

import { answerCached, serverWithFastPath } from "../../src/http/PublicHttpServer.js"

/** The most the service reads of a request body: 1 MB (docs/api.md). */
const maxBodyBytes = 1024 * 1024

const timeouts = { headers: 300, request: 600, keepAlive: 1_000, idle: 2_000, checkInterval: 100 }

/** A server with the fast path and, standing in for the app, a handler that reads the whole body first. */
const withServer = async (run: (port: number) => Promise<void>) => {
  const server = serverWithFastPath(answerCached(() => undefined), timeouts)
  server.on("request", (req, res) => {
    let length = 0
    req.on("data", (chunk: Buffer) => (length += chunk.length)).on("end", () => res.end(`read ${length}`))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    await run((server.address() as AddressInfo).port)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

/** A raw connection: everything the server sent until it closed the connection. */
const rawExchange = (port: number, send: (socket: Socket) => void) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => send(socket))
    let received = ""
    socket.setEncoding("utf8").on("data", (chunk) => (received += chunk)).on("close", () => resolve(received))
      .on("error", reject)
  })

const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))

/** Sends only the headers of a POST declaring `length` bytes, and returns the answer; `expectContinue` asks first. */
const declareBody = (port: number, length: number, expectContinue: boolean) =>
  new Promise<{ status: number; body: string; continued: boolean }>((resolve, reject) => {
    let continued = false
    const req = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/api/v1/subscribe",
      headers: {
        "content-type": "application/json",
        "content-length": String(length),
        ...(expectContinue ? { expect: "100-continue" } : {})
      }
    }, (res) => {
      let body = ""
      res.setEncoding("utf8").on("data", (chunk) => (body += chunk)).on("end", () => {
        resolve({ status: res.statusCode!, body, continued })
        req.destroy()
      })
    })
    req.on("continue", () => (continued = true)).on("error", reject)
    req.flushHeaders()
  })

describe("Node server limits", () => {
  it("refuses a declared body over 1 MB with 413 before reading it", () =>
    withServer(async (port) => {
      const refused = await declareBody(port, maxBodyBytes + 1, false)
      expect(refused.status).toBe(413)
      expect(JSON.parse(refused.body)).toEqual({
        _tag: "PayloadTooLarge",
        message: "The request body is over 1 MB, the most the service reads"
      })
    }), 5_000)

  it(
    "lets a client still writing a body a little over 1 MB read its 413, rather than breaking its pipe",
    () =>
      withServer(async (port) => {
        const body = Buffer.alloc(maxBodyBytes + 10, "a")
        // Written in pieces, as a client on a slow link does: the answer comes before the body is in.
        const sendSlowly = () =>
          new Promise<number | string>((resolve) => {
            const req = request({
              host: "127.0.0.1",
              port,
              method: "POST",
              path: "/api/v1/subscribe",
              headers: { "content-type": "application/json", "content-length": String(body.length) }
            }, (res) => res.resume().on("end", () => resolve(res.statusCode!)))
            req.on("error", (error) => resolve(error.message))
            let at = 0
            const next = () => {
              if (at >= body.length) return void req.end()
              req.write(body.subarray(at, at += 65_536))
              setTimeout(next, 2)
            }
            next()
          })
        const answers = await Promise.all(Array.from({ length: 20 }, sendSlowly))
        expect(answers).toEqual(Array.from({ length: 20 }, () => 413))
      }),
    10_000
  )

  it(
    "answers `Expect: 100-continue` with 413 for a body over 1 MB, and with 100 Continue within it",
    () =>
      withServer(async (port) => {
        const refused = await declareBody(port, 5 * maxBodyBytes, true)
        expect(refused).toMatchObject({ status: 413, continued: false })
        const accepted = await new Promise<string>((resolve, reject) => {
          const req = request({
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/api/v1/subscribe",
            headers: { "content-type": "application/json", "content-length": "2", expect: "100-continue" }
          }, (res) => res.setEncoding("utf8").on("data", resolve))
          req.on("continue", () => req.end("{}")).on("error", reject)
          req.flushHeaders()
        })
        expect(accepted).toBe("read 2")
      }),
    5_000
  )

  it(
    "answers 408 and closes the connection when the headers are not in within the headers time-out",
    () =>
      withServer(async (port) => {
        const raw = await rawExchange(port, (socket) => socket.write("GET /api/v1/status HTTP/1.1\r\nHost: x\r\n"))
        expect(raw).toMatch(/^HTTP\/1\.1 408 /)
        expect(bodyOf(raw)).toEqual({ _tag: "RequestTimeout", message: "The request took too long to arrive" })
      }),
    5_000
  )

  it(
    "answers 408 and closes the connection when the body is not in within the request time-out",
    () =>
      withServer(async (port) => {
        const raw = await rawExchange(port, (socket) =>
          socket.write(
            "POST /api/v1/subscribe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"em"
          ))
        expect(raw).toMatch(/^HTTP\/1\.1 408 /)
        expect(bodyOf(raw)._tag).toBe("RequestTimeout")
      }),
    5_000
  )

  it("answers 408 and closes a connection on which nothing is sent", () =>
    withServer(async (port) => {
      const raw = await rawExchange(port, () => {})
      expect(raw).toMatch(/^HTTP\/1\.1 408 /)
    }), 5_000)

  it("closes a kept-alive connection left idle after a response", () =>
    withServer(async (port) => {
      const raw = await rawExchange(port, (socket) => socket.write("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"))
      expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
      expect(raw).toContain("Keep-Alive: timeout=1")
      expect(raw.endsWith("read 0")).toBe(true)
    }), 5_000)
})
