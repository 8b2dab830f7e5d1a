/**
 * A real S3-compatible server (s3rver) on a loopback port, with one bucket, for the static
 * mirror's tests: objects go through the S3 protocol and the AWS SDK as they would to a bucket.
 * It records the keys written, and can be stopped and started again on the same port
 * and data (a bucket that goes away for a while).
 */
import crypto from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"

import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3"
import S3rver from "s3rver"

/**
 * s3rver pages a listing past 1,000 keys with a continuation token it enciphers with single DES,
 * which OpenSSL 3 (Node 17 and later) keeps in its legacy provider only: the listing answered 500.
 * Triple DES with three equal keys is single DES, and is in the default provider. s3rver looks the
 * functions up on the shared `crypto` module at each call, so this covers it.
 */
const asTripleDes = <F extends typeof crypto.createCipheriv | typeof crypto.createDecipheriv>(make: F): F =>
  ((algorithm: string, key: Buffer, iv: Buffer | null, options?: unknown) =>
    algorithm === "des"
      ? (make as (...args: Array<unknown>) => unknown)("des-ede3-cbc", Buffer.concat([key, key, key]), iv, options)
      : (make as (...args: Array<unknown>) => unknown)(algorithm, key, iv, options)) as unknown as F
crypto.createCipheriv = asTripleDes(crypto.createCipheriv.bind(crypto))
crypto.createDecipheriv = asTripleDes(crypto.createDecipheriv.bind(crypto))

export const s3Credentials = { AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" }

/** The paths the static mirror holds whatever the state (besides each incident's and window's). */
export const mirroredPaths = [
  "/",
  "/history",
  "/badge.svg",
  "/widget.json",
  "/api/v1/status",
  "/api/v1/status/components",
  "/api/v1/status/incidents",
  "/api/v1/status/maintenance",
  "/api/v1/status/uptime",
  "/api/v1/status/rss",
  "/api/v1/status/atom"
]

/** The key a public path has in the mirror's bucket. */
export const mirrorKeyOf = (path: string) => path.endsWith("/") ? `${path.slice(1)}index.html` : path.slice(1)

/** One read of an object at most this long, and this many reads before its error is thrown. */
const readTimeoutMs = 2_000
const readAttempts = 5

export const startS3Server = async (bucket = "status-mirror") => {
  const directory = mkdtempSync(Path.join(tmpdir(), "s3rver-"))
  const written: Array<string> = []
  /** The writes with when each arrived (performance.now()), for measuring lags. */
  const timeline: Array<{ readonly key: string; readonly at: number }> = []
  const make = (port: number) => {
    const server = new S3rver({
      address: "127.0.0.1",
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }]
    })
    server.on("event", (event) => {
      for (const record of event.Records) {
        if (record.eventName.startsWith("ObjectCreated")) {
          written.push(decodeURIComponent(record.s3.object.key))
          timeline.push({ key: decodeURIComponent(record.s3.object.key), at: performance.now() })
        }
      }
    })
    return server
  }
  let server: S3rver | undefined = make(0)
  const { port } = await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }
  })

  return {
    endpoint,
    bucket,
    written,
    timeline,
    /** Every key in the bucket. */
    keys: async () => {
      const keys: Array<string> = []
      let token: string | undefined
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }))
        keys.push(...(page.Contents ?? []).flatMap((object) => object.Key === undefined ? [] : [object.Key]))
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined
      } while (token !== undefined)
      return keys.sort()
    },
    /**
     * An object's bytes and the headers it is served with; undefined when there is none. s3rver
     * rewrites an object's file in place where S3 replaces the object whole, so a read that meets
     * a write of the same key is cut short ("aborted") or waits for bytes that never come: such a
     * read is bounded and made again, as a reader of S3 would never see it.
     */
    get: async (key: string) => {
      for (let attempt = 1;; attempt++) {
        try {
          const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), {
            abortSignal: AbortSignal.timeout(readTimeoutMs)
          })
          return {
            body: Buffer.from(await object.Body!.transformToByteArray()),
            contentType: object.ContentType,
            cacheControl: object.CacheControl
          }
        } catch (error) {
          if ((error as { name?: string }).name === "NoSuchKey") return undefined
          if (attempt >= readAttempts) throw error
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      }
    },
    put: (key: string, body: string) =>
      client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: "text/plain" })),
    stop: async () => {
      await server?.close()
      server = undefined
    },
    restart: async () => {
      server = make(port)
      await server.run()
    },
    dispose: async () => {
      client.destroy()
      await server?.close()
      rmSync(directory, { recursive: true, force: true })
    }
  }
}

export type S3Server = Awaited<ReturnType<typeof startS3Server>>
