import { request } from "node:http"
import type { AddressInfo } from "node:net"

import { describe, expect, it } from "@effect/vitest"

import { answerCached, serverWithFastPath } from "../../src/http/PublicHttpServer.js"
import type { EncodedResponse } from "../../src/public/PublicResponses.js"
import { acceptsGzip } from "../../src/public/PublicResponses.js"

const summary: EncodedResponse = {
  body: Buffer.from("{\"status\":\"operational\"}"),
  contentType: "application/json",
  etag: "\"v1\""
}

const send = (port: number, method: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let body = ""
      res.setEncoding("utf8").on("data", (chunk) => (body += chunk)).on(
        "end",
        () => resolve({ status: res.statusCode!, headers: res.headers, body })
      )
    })
    req.on("error", reject).end()
  })

/** A server with the fast path over `lookup`, and a stand-in for the Effect router that says "router". */
const withServer = async (
  lookup: (path: string) => EncodedResponse | undefined,
  run: (port: number) => Promise<void>
) => {
  const server = serverWithFastPath(answerCached(lookup))
  server.on("request", (_req, res) => res.end("router"))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    await run((server.address() as AddressInfo).port)
  } finally {
    await new Promise((resolve) => server.close(resolve))
  }
}

describe("public fast path", () => {
  it("offers gzip only to clients that accept it with a quality above 0", () => {
    const cases: ReadonlyArray<readonly [string | undefined, boolean]> = [
      ["gzip", true],
      ["br, GZIP", true],
      ["gzip;q=0.5, br", true],
      ["*", true],
      ["gzip;q=0", false],
      ["gzip; q=0, *", false],
      ["identity, *;q=0", false],
      ["br", false],
      ["gzipped", false],
      ["", false],
      [undefined, false]
    ]
    for (const [header, expected] of cases) expect(acceptsGzip(header), String(header)).toBe(expected)
  })

  it("answers a cached GET with the bytes, ETag and Cache-Control, and 304 on If-None-Match", () =>
    withServer((path) => path === "/api/v1/status" ? summary : undefined, async (port) => {
      const first = await send(port, "GET", "/api/v1/status")
      expect(first).toMatchObject({ status: 200, body: "{\"status\":\"operational\"}" })
      expect(first.headers).toMatchObject({
        etag: "\"v1\"",
        "content-type": "application/json",
        "cache-control": "public, max-age=5"
      })
      const revalidated = await send(port, "GET", "/api/v1/status", { "if-none-match": "\"v0\", \"v1\"" })
      expect(revalidated).toMatchObject({ status: 304, body: "" })
      expect((await send(port, "GET", "/api/v1/status", { "if-none-match": "\"v0\"" })).status).toBe(200)
    }))

  it("leaves other methods, query strings, uncached paths and a missing snapshot to the router", () =>
    withServer((path) => path === "/api/v1/status" ? summary : undefined, async (port) => {
      expect((await send(port, "POST", "/api/v1/status")).body).toBe("router")
      expect((await send(port, "HEAD", "/api/v1/status")).headers.etag).toBeUndefined()
      expect((await send(port, "GET", "/api/v1/status?x=1")).body).toBe("router")
      expect((await send(port, "GET", "/api/v1/status/other")).body).toBe("router")
    }).then(() =>
      withServer(() => undefined, async (port) => {
        expect((await send(port, "GET", "/api/v1/status")).body).toBe("router")
      })
    ))

  it("holds requests that arrive before the app is attached and hands them over when it is", async () => {
    const server = serverWithFastPath(answerCached(() => undefined))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const early = send((server.address() as AddressInfo).port, "GET", "/readyz")
      await new Promise((resolve) => setTimeout(resolve, 100))
      server.on("request", (_req, res) => res.end("app ready"))
      expect((await early).body).toBe("app ready")
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
