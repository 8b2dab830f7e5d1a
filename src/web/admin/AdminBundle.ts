/**
 * The dashboard's browser code, bundled in memory with esbuild when the api role starts:
 * `npm start` and `npm test` need no build step, and what runs is always the current source
 * (including the API declaration the typed client derives from).
 */
import { createHash } from "node:crypto"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

import { Data, Effect } from "effect"
import * as esbuild from "esbuild"

export interface AdminAsset {
  readonly body: Uint8Array
  /** The same bytes gzipped once here, for clients that accept it. */
  readonly gzipped: Uint8Array
  readonly contentType: string
  /** Content hash: the version in the asset's URL and its ETag. */
  readonly hash: string
}

export interface AdminBundle {
  readonly script: AdminAsset
  readonly stylesheet: AdminAsset
}

export class AdminBundleError extends Data.TaggedError("AdminBundleError")<{ readonly message: string }> {}

const appDirectory = fileURLToPath(new URL("./app/", import.meta.url))

const asset = (body: Uint8Array, contentType: string): AdminAsset => ({
  body,
  gzipped: gzipSync(body, { level: 9 }),
  contentType,
  hash: createHash("sha256").update(body).digest("base64url").slice(0, 16)
})

export const buildAdminBundle: Effect.Effect<AdminBundle, AdminBundleError> = Effect.tryPromise({
  try: () =>
    esbuild.build({
      entryPoints: { app: `${appDirectory}main.tsx`, styles: `${appDirectory}admin.css` },
      bundle: true,
      write: false,
      outdir: "/admin",
      format: "esm",
      platform: "browser",
      target: ["es2022"],
      minify: true,
      jsx: "automatic",
      jsxImportSource: "preact",
      legalComments: "none",
      logLevel: "silent"
    }),
  catch: (error) => new AdminBundleError({ message: `The dashboard could not be bundled: ${String(error)}` })
}).pipe(
  Effect.flatMap((result) => {
    const find = (extension: string) => result.outputFiles.find((file) => file.path.endsWith(extension))
    const script = find(".js")
    const stylesheet = find(".css")
    return script && stylesheet
      ? Effect.succeed({
        script: asset(script.contents, "text/javascript; charset=utf-8"),
        stylesheet: asset(stylesheet.contents, "text/css; charset=utf-8")
      })
      : Effect.fail(new AdminBundleError({ message: "esbuild produced no script or no stylesheet" }))
  }),
  Effect.withLogSpan("admin.bundle")
)
