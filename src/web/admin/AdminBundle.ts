/**
 * The dashboard's browser code. `npm start` runs the server bundle that scripts/buildServer.ts
 * builds, with the dashboard bundled beside it (`dist/server/dashboard/`): it reads those two
 * files. Run from the sources (the tests, `tsx src/main.ts`, the library), it bundles the
 * dashboard in memory with esbuild, once per process, so what runs is always the current source
 * (including the API declaration the typed client derives from); esbuild's service process
 * (about 180 MB) is stopped once the bundle is made.
 */
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

import { Data, Effect } from "effect"
import type * as esbuild from "esbuild"

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

/**
 * Replaced by scripts/buildServer.ts with the folder, relative to the server bundle, that holds
 * the prebuilt dashboard; undefined when the sources run.
 */
declare const STATUS_PAGE_PREBUILT_DASHBOARD: string | undefined
const prebuiltDirectory = typeof STATUS_PAGE_PREBUILT_DASHBOARD === "string"
  ? fileURLToPath(new URL(STATUS_PAGE_PREBUILT_DASHBOARD, import.meta.url))
  : undefined

const appDirectory = fileURLToPath(new URL("./app/", import.meta.url))

/** How the dashboard is bundled, here and by scripts/buildServer.ts: `app.js` and `styles.css`. */
export const dashboardBuildOptions = {
  entryPoints: { app: `${appDirectory}main.tsx`, styles: `${appDirectory}admin.css` },
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  logLevel: "silent"
} satisfies esbuild.BuildOptions

const asset = (body: Uint8Array, contentType: string): AdminAsset => ({
  body,
  gzipped: gzipSync(body, { level: 9 }),
  contentType,
  hash: createHash("sha256").update(body).digest("base64url").slice(0, 16)
})

const bundleOf = (script: Uint8Array, stylesheet: Uint8Array): AdminBundle => ({
  script: asset(script, "text/javascript; charset=utf-8"),
  stylesheet: asset(stylesheet, "text/css; charset=utf-8")
})

const readPrebuilt = (directory: string) =>
  Promise.all([readFile(`${directory}/app.js`), readFile(`${directory}/styles.css`)]).then(([script, stylesheet]) =>
    bundleOf(script, stylesheet)
  )

const bundleInMemory = async () => {
  const esbuild = await import("esbuild")
  try {
    const result = await esbuild.build({ ...dashboardBuildOptions, write: false, outdir: "/admin" })
    const find = (extension: string) => result.outputFiles.find((file) => file.path.endsWith(extension))
    const script = find(".js")
    const stylesheet = find(".css")
    if (!script || !stylesheet) throw new Error("esbuild produced no script or no stylesheet")
    return bundleOf(script.contents, stylesheet.contents)
  } finally {
    await esbuild.stop()
  }
}

/** One build per process, shared by every server it runs (the tests start many). */
let building: Promise<AdminBundle> | undefined

export const buildAdminBundle: Effect.Effect<AdminBundle, AdminBundleError> = Effect.tryPromise({
  try: () => {
    building ??= prebuiltDirectory === undefined ? bundleInMemory() : readPrebuilt(prebuiltDirectory)
    // A failed build is not kept: the next server to start tries again.
    building.catch(() => (building = undefined))
    return building
  },
  catch: (error) => new AdminBundleError({ message: `The dashboard could not be bundled: ${String(error)}` })
}).pipe(Effect.withLogSpan("admin.bundle"))
