/**
 * Where the static mirror is written (docs/operations.md, "Static mirror"): an S3-compatible bucket (MIRROR_S3_URL)
 * or a local folder (MIRROR_DIR). Parsed once at start-up; a value that names no bucket is refused
 * there, with the rule, rather than at the first upload.
 */
import { Result } from "effect"

export interface S3Credentials {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly sessionToken?: string
}

export type MirrorTarget =
  | {
    readonly _tag: "S3"
    /** Unset: AWS S3 itself, at the region's endpoint. */
    readonly endpoint: string | undefined
    readonly bucket: string
    /** Prepended to every key: empty, or ending with `/`. */
    readonly prefix: string
    /** `https://endpoint/bucket/key` rather than `https://bucket.endpoint/key`. */
    readonly pathStyle: boolean
    readonly region: string
    /** From AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN); unset: the SDK's own chain (a profile, an instance role). */
    readonly credentials: S3Credentials | undefined
  }
  | { readonly _tag: "Directory"; readonly path: string }

// S3's own rule for bucket names (3–63 lower-case letters, digits, dots and hyphens).
const bucketName = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/

const usage = "MIRROR_S3_URL must be s3://BUCKET[/PREFIX] or http(s)://ENDPOINT/BUCKET[/PREFIX][?path-style=false]"

/** The prefix as keys start: no leading slash, one trailing slash unless empty (the URL parser already resolved `.` and `..`). */
const normalisedPrefix = (segments: ReadonlyArray<string>) => {
  const parts = segments.filter((segment) => segment.length > 0)
  return parts.length === 0 ? "" : `${parts.join("/")}/`
}

/**
 * `s3://bucket/prefix` (AWS S3, virtual-hosted addressing) or `https://endpoint/bucket/prefix`
 * (any S3-compatible service, path-style unless `?path-style=false`).
 */
export const parseS3Url = (
  text: string,
  region: string,
  credentials?: S3Credentials
): Result.Result<MirrorTarget, string> => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return Result.fail(usage)
  }
  if (url.username !== "" || url.password !== "") {
    return Result.fail("MIRROR_S3_URL must not hold credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
  }
  const pathStyleParam = url.searchParams.get("path-style")
  if ([...url.searchParams.keys()].some((key) => key !== "path-style")) return Result.fail(usage)
  if (pathStyleParam !== null && pathStyleParam !== "true" && pathStyleParam !== "false") {
    return Result.fail("MIRROR_S3_URL's path-style must be true or false")
  }
  let decoded: Array<string>
  try {
    decoded = url.pathname.split("/").map((segment) => decodeURIComponent(segment))
  } catch {
    return Result.fail(usage)
  }
  const [bucket, segments] = url.protocol === "s3:"
    ? [url.hostname, decoded]
    : url.protocol === "http:" || url.protocol === "https:"
    ? [decoded[1] ?? "", decoded.slice(2)]
    : [undefined, []]
  if (bucket === undefined) return Result.fail(usage)
  if (!bucketName.test(bucket)) return Result.fail(`MIRROR_S3_URL names no valid bucket: "${bucket}"`)
  const prefix = normalisedPrefix(segments)
  return Result.succeed({
    _tag: "S3",
    endpoint: url.protocol === "s3:" ? undefined : url.origin,
    bucket,
    prefix,
    pathStyle: url.protocol === "s3:" ? false : pathStyleParam !== "false",
    region,
    credentials
  })
}
