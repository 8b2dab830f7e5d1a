/**
 * The outside world of the system suite, in the test's process: one HTTP server receiving every
 * webhook (`/hook/<name>`), and monitor targets (`/ok/<n>` answers 200, and each request is logged).
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface Receipt {
  readonly hook: string
  readonly webhookId: string
  readonly event: string
  readonly data: Record<string, unknown>
  readonly timestamp: string
  readonly signatureValid: boolean
  readonly receivedAt: number
}

export interface WebhookSink {
  readonly urlFor: (hook: string) => string
  /** The secret each hook's signatures are checked with (set once the webhook is created). */
  readonly secrets: Map<string, string>
  readonly receipts: Array<Receipt>
  /** Requests that were not a generic webhook delivery (unparseable body, unknown path). */
  readonly malformed: Array<string>
  readonly close: () => Promise<void>
}

const validSignature = (secret: string | undefined, body: Buffer, header: string | undefined) => {
  if (secret === undefined || header === undefined) return false
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(body).digest("hex")}`)
  const given = Buffer.from(header)
  return expected.length === given.length && timingSafeEqual(expected, given)
}

export const startWebhookSink = async (): Promise<WebhookSink> => {
  const receipts: Array<Receipt> = []
  const malformed: Array<string> = []
  const secrets = new Map<string, string>()
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks)
      const hook = /^\/hook\/([\w-]+)$/.exec(request.url ?? "")?.[1]
      try {
        const parsed = JSON.parse(body.toString("utf8")) as {
          event: string
          timestamp: string
          data: Record<string, unknown>
        }
        if (hook === undefined || typeof parsed.event !== "string") throw new Error("not a delivery")
        receipts.push({
          hook,
          webhookId: String(request.headers["webhook-id"]),
          event: parsed.event,
          data: parsed.data,
          timestamp: parsed.timestamp,
          signatureValid: validSignature(
            secrets.get(hook),
            body,
            request.headers["x-service-signature"] as string | undefined
          ),
          receivedAt: Date.now()
        })
      } catch {
        malformed.push(`${request.method} ${request.url}: ${body.toString("utf8").slice(0, 200)}`)
      }
      response.writeHead(200, { "content-type": "text/plain" })
      response.end("ok")
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    urlFor: (hook) => `http://127.0.0.1:${port}/hook/${hook}`,
    secrets,
    receipts,
    malformed,
    close: () => closeServer(server)
  }
}

/** One request to a monitor target, as the target saw it. */
export interface TargetRequest {
  /** The target's number: the request was for `/ok/<n>`. */
  readonly n: number
  /** The address the connection came from: each probe's own (TestBed.ts). */
  readonly from: string
  readonly at: number
}

export interface Targets {
  readonly port: number
  readonly url: (n: number) => string
  readonly requests: () => number
  /** Every request for `/ok/<n>`, in arrival order: the targets' own log, kept by the suite. */
  readonly log: ReadonlyArray<TargetRequest>
  readonly close: () => Promise<void>
}

/** Monitor targets: `/ok/<n>` answers 200 with a small body, and each request is logged. */
/**
 * The monitors' targets. `delayMs` (SYSTEM_TARGET_DELAY_MS) holds each answer that long, as a
 * target on the internet takes time: probes then have checks in flight when they are killed.
 */
export const startTargets = async (delayMs = Number(process.env.SYSTEM_TARGET_DELAY_MS ?? 0)): Promise<Targets> => {
  let requests = 0
  const log: Array<TargetRequest> = []
  const server = createServer((request, response) => {
    requests++
    const n = /^\/ok\/(\d+)$/.exec(request.url ?? "")?.[1]
    if (n !== undefined) {
      log.push({ n: Number(n), from: request.socket.remoteAddress ?? "", at: Date.now() })
    }
    const answer = () => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.end("ok")
    }
    if (delayMs > 0) setTimeout(answer, delayMs)
    else answer()
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    url: (n) => `http://127.0.0.1:${port}/ok/${n}`,
    requests: () => requests,
    log,
    close: () => closeServer(server)
  }
}

const closeServer = (server: ReturnType<typeof createServer>) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
