/**
 * Builds what `npm start` runs (`npm run build:server`, run by npm before `start`): src/main.ts
 * and the modules it imports, bundled by esbuild into `dist/server/main.mjs`, and the dashboard
 * prebuilt beside it (`dist/server/dashboard/app.js`, `styles.css`). Plain `node` then runs the
 * service in one process: no tsx wrapper, compiler thread or source maps kept in memory, and no
 * esbuild service process after bundling the dashboard (docs/benchmarks.md, "Cost per check").
 * It takes about a second.
 *
 * Effect's packages are bundled, so only the modules the service uses are loaded: their indexes
 * import every module (the two API documentation UIs alone hold about 20 MB of source text).
 * Every other package stays an import from node_modules, as installed.
 *
 * `dist/server/` is two folders below the root, as `src/persistence/` is, so
 * `new URL("../../migrations", import.meta.url)` still finds `migrations/`. `--outdir dist/<name>`
 * builds elsewhere at the same depth (the smoke test builds its own).
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

import * as esbuild from "esbuild"

import { dashboardBuildOptions } from "../src/web/admin/AdminBundle.js"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const outdirArgument = process.argv.indexOf("--outdir")
const outdir = resolve(root, outdirArgument === -1 ? "dist/server" : process.argv[outdirArgument + 1]!)
const dashboardFolder = "dashboard"

const bundleEffectOnly: esbuild.Plugin = {
  name: "bundle-effect-only",
  setup(build) {
    build.onResolve(
      { filter: /^[^./]/ },
      ({ path }) => /^(effect|@effect\/)/.test(path) ? undefined : { path, external: true }
    )
  }
}

rmSync(outdir, { recursive: true, force: true })
await Promise.all([
  esbuild.build({
    entryPoints: { main: join(root, "src/main.ts") },
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    plugins: [bundleEffectOnly],
    platform: "node",
    format: "esm",
    target: ["node20"],
    sourcemap: "linked",
    define: { STATUS_PAGE_PREBUILT_DASHBOARD: JSON.stringify(`./${dashboardFolder}/`) },
    logLevel: "warning"
  }),
  esbuild.build({ ...dashboardBuildOptions, outdir: join(outdir, dashboardFolder) })
])
await esbuild.stop()

// esbuild keeps a few characters as written (in comments and template literals), and one character
// beyond ASCII in a module makes Node hand V8 its whole source as two bytes a character: 3.5 MB
// instead of 1.75 for main.mjs, for as long as the service runs. A Latin-1 one (the page's "·") is
// enough. Escaped, the strings are the same and the comments read the same.
for (const file of readdirSync(outdir).filter((name) => name.endsWith(".mjs"))) {
  const path = join(outdir, file)
  const source = readFileSync(path, "utf8")
  const escaped = source.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  if (escaped !== source) writeFileSync(path, escaped)
}
