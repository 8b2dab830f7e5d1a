/**
 * A bucket of more than 1,000 objects (a deployment with many components and incidents) is
 * listed whole: S3 answers a listing in pages of 1,000, and the store follows the continuation
 * token. Against s3rver, whose token needed a cipher Node 24 lacks until test/support/S3Server.ts
 * gave it one: the system suite's mirror stopped publishing once its bucket passed 1,000 keys.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { s3MirrorStore } from "../../src/mirror/S3MirrorStore.js"
import { type S3Server, startS3Server } from "../support/S3Server.js"

describe("S3 mirror store", () => {
  let s3: S3Server
  const count = 1001

  beforeAll(async () => {
    s3 = await startS3Server()
    for (let start = 0; start < count; start += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - start) }, (_, i) => s3.put(`incidents/${start + i}`, "x"))
      )
    }
  }, 120_000)

  afterAll(async () => {
    await s3?.dispose()
  })

  it.effect("lists every object of a bucket past 1,000 keys", () =>
    Effect.gen(function*() {
      const store = yield* s3MirrorStore({
        _tag: "S3",
        endpoint: s3.endpoint,
        bucket: s3.bucket,
        prefix: "",
        pathStyle: true,
        region: "us-east-1",
        credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }
      })
      const listed = yield* store.list
      expect(listed.size).toBe(count)
    }), 60_000)
})
