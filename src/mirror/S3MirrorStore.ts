/**
 * The mirror in an S3-compatible bucket (MIRROR_S3_URL): keys are the public paths under the
 * prefix (`/` is `index.html`, the index document of a bucket served as a website), each object
 * with the content type and `Cache-Control` the service sends. The AWS SDK is loaded only when a
 * bucket is configured: a deployment without a mirror does not carry it in memory.
 */
import { Effect } from "effect"

import type { MirrorTarget } from "../domain/MirrorTarget.js"
import { mirrorError, type MirrorObject, type MirrorStore } from "./MirrorStore.js"

type S3Target = Extract<MirrorTarget, { _tag: "S3" }>

/** DeleteObjects takes at most this many keys. */
const deleteBatch = 1000

/** A key under the prefix: the path itself, a page's root (`/`, `/p/<slug>/`) being its folder's `index.html`. */
const keyOf = (path: string) => path.endsWith("/") ? `${path.slice(1)}index.html` : path.slice(1)

export const s3MirrorStore = Effect.fnUntraced(function*(target: S3Target) {
  const S3 = yield* Effect.tryPromise({
    try: () => import("@aws-sdk/client-s3"),
    catch: mirrorError("Loading the AWS SDK")
  })
  const client = new S3.S3Client({
    region: target.region,
    forcePathStyle: target.pathStyle,
    ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
    ...(target.credentials === undefined ? {} : { credentials: target.credentials }),
    // Checksums only where S3 requires them: S3-compatible services that predate the SDK's
    // default CRC trailers refuse uploads that carry them.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED"
  })
  yield* Effect.addFinalizer(() => Effect.sync(() => client.destroy()))
  const { bucket, prefix } = target

  const list = Effect.tryPromise({
    try: async () => {
      const digests = new Map<string, string>()
      let token: string | undefined
      do {
        const page = await client.send(
          new S3.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token })
        )
        for (const object of page.Contents ?? []) {
          // A multipart upload's ETag is no MD5 of the bytes: it never matches, so the object is written again.
          if (object.Key !== undefined) {
            digests.set(object.Key.slice(prefix.length), (object.ETag ?? "").replace(/"/g, ""))
          }
        }
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined
      } while (token !== undefined)
      return digests as ReadonlyMap<string, string>
    },
    catch: mirrorError(`Listing s3://${bucket}/${prefix}`)
  })

  const store: MirrorStore = {
    describe: `s3://${bucket}/${prefix}${target.endpoint === undefined ? "" : ` at ${target.endpoint}`}`,
    keyOf,
    list,
    put: (key: string, object: MirrorObject) =>
      Effect.tryPromise({
        try: () =>
          client.send(
            new S3.PutObjectCommand({
              Bucket: bucket,
              Key: prefix + key,
              Body: object.body,
              ContentType: object.contentType,
              CacheControl: object.cacheControl
            })
          ),
        catch: mirrorError(`Writing s3://${bucket}/${prefix}${key}`)
      }),
    remove: (keys: ReadonlyArray<string>) =>
      Effect.tryPromise({
        try: async () => {
          for (let start = 0; start < keys.length; start += deleteBatch) {
            const answer = await client.send(
              new S3.DeleteObjectsCommand({
                Bucket: bucket,
                Delete: {
                  Objects: keys.slice(start, start + deleteBatch).map((key) => ({ Key: prefix + key })),
                  Quiet: true
                }
              })
            )
            const refused = answer.Errors ?? []
            if (refused.length > 0) {
              throw new Error(`${refused.length} not deleted, first ${refused[0]!.Key}: ${refused[0]!.Message}`)
            }
          }
        },
        catch: mirrorError(`Removing objects from s3://${bucket}/${prefix}`)
      })
  }
  return store
})
