/**
 * Where the mirror goes (MIRROR_S3_URL, MIRROR_DIR): what a URL means, what is refused at
 * start-up, how public paths become files in a folder, and that a folder store stays in its folder.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Result } from "effect"

import { parseS3Url } from "../../src/domain/MirrorTarget.js"
import { directoryMirrorStore, fileKeyOf } from "../../src/mirror/DirectoryMirrorStore.js"
import { MirrorConfig } from "../../src/runtime/Config.js"

const parsed = (text: string) => parseS3Url(text, "eu-west-1")

describe("MIRROR_S3_URL", () => {
  it("s3:// names an AWS bucket, virtual-hosted, with an optional prefix", () => {
    expect(Result.getOrThrow(parsed("s3://status-example/public/page"))).toEqual({
      _tag: "S3",
      endpoint: undefined,
      bucket: "status-example",
      prefix: "public/page/",
      pathStyle: false,
      region: "eu-west-1",
      credentials: undefined
    })
    expect(Result.getOrThrow(parsed("s3://status-example"))).toMatchObject({ prefix: "" })
  })

  it("an http(s) endpoint takes the bucket from the path, path-style unless told otherwise", () => {
    expect(Result.getOrThrow(parsed("http://127.0.0.1:9000/mirror/status/"))).toMatchObject({
      endpoint: "http://127.0.0.1:9000",
      bucket: "mirror",
      prefix: "status/",
      pathStyle: true
    })
    expect(Result.getOrThrow(parsed("https://s3.example.com/mirror?path-style=false"))).toMatchObject({
      pathStyle: false
    })
  })

  it("refuses what names no bucket or holds credentials", () => {
    for (
      const [text, message] of [
        ["not a url", "MIRROR_S3_URL must be"],
        ["ftp://host/bucket", "MIRROR_S3_URL must be"],
        ["https://s3.example.com/", "names no valid bucket"],
        ["https://s3.example.com/mirror/%zz", "MIRROR_S3_URL must be"],
        ["https://s3.example.com/Upper_Case", "names no valid bucket"],
        ["https://key:secret@s3.example.com/mirror", "must not hold credentials"],
        ["https://s3.example.com/mirror?path-style=maybe", "path-style must be true or false"],
        ["https://s3.example.com/mirror?region=x", "MIRROR_S3_URL must be"]
      ] as const
    ) {
      const result = parsed(text)
      expect(Result.isFailure(result), text).toBe(true)
      if (Result.isFailure(result)) expect(result.failure).toContain(message)
    }
  })
})

const mirrorConfig = (env: Record<string, string>) =>
  Effect.runPromise(Effect.result(MirrorConfig.parse(ConfigProvider.fromUnknown(env))))

describe("MirrorConfig", () => {
  it("no variable: no mirror; MIRROR_DIR: a folder; both: refused", async () => {
    expect(Result.getOrThrow(await mirrorConfig({}))).toEqual(Option.none())
    expect(Result.getOrThrow(await mirrorConfig({ MIRROR_DIR: "/srv/status" }))).toEqual(
      Option.some({ _tag: "Directory", path: "/srv/status" })
    )
    expect(Result.isFailure(await mirrorConfig({ MIRROR_DIR: "/srv/status", MIRROR_S3_URL: "s3://status-example" })))
      .toBe(true)
  })

  it("takes the region and the AWS credentials, both halves or neither", async () => {
    const target = Result.getOrThrow(
      await mirrorConfig({
        MIRROR_S3_URL: "s3://status-example",
        AWS_REGION: "ap-south-1",
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "secret"
      })
    )
    expect(Option.getOrThrow(target)).toMatchObject({
      region: "ap-south-1",
      credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" }
    })
    expect(
      Result.isFailure(await mirrorConfig({ MIRROR_S3_URL: "s3://status-example", AWS_ACCESS_KEY_ID: "AKIDEXAMPLE" }))
    ).toBe(true)
  })
})

describe("a folder's file names", () => {
  it("give a path without an extension the one of its content type, so a static host types it", () => {
    expect(fileKeyOf("/", "text/html; charset=utf-8")).toBe("index.html")
    expect(fileKeyOf("/history/2", "text/html; charset=utf-8")).toBe("history/2.html")
    expect(fileKeyOf("/api/v1/status", "application/json")).toBe("api/v1/status.json")
    expect(fileKeyOf("/api/v1/status/rss", "application/rss+xml; charset=utf-8")).toBe("api/v1/status/rss.rss")
    expect(fileKeyOf("/badge.svg", "image/svg+xml")).toBe("badge.svg")
    expect(fileKeyOf("/widget.json", "application/json")).toBe("widget.json")
  })
})

describe("a folder store", () => {
  it("never writes outside its folder", async () => {
    const folder = mkdtempSync(Path.join(tmpdir(), "mirror-store-"))
    try {
      const store = directoryMirrorStore(Path.join(folder, "site"))
      const object = { body: Buffer.from("x"), contentType: "text/html", cacheControl: "public, max-age=5" }
      for (const key of ["../escaped.html", "incidents/../../escaped.html"]) {
        const result = await Effect.runPromise(Effect.result(store.put(key, object)))
        expect(Result.isFailure(result), key).toBe(true)
      }
      expect(existsSync(Path.join(folder, "escaped.html"))).toBe(false)
      await Effect.runPromise(store.put("incidents/a.html", object))
      expect([...(await Effect.runPromise(store.list)).keys()]).toEqual(["incidents/a.html"])
      await Effect.runPromise(store.remove(["incidents/a.html"]))
      // The folder the file left empty goes with it.
      expect(existsSync(Path.join(folder, "site", "incidents"))).toBe(false)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
