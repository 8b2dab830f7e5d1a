/**
 * The OpenAPI document passes Spectral's OpenAPI rules (`spectral:oas`, .spectral.yaml) without a
 * single warning: the document the server serves is written to a file and linted by the installed
 * Spectral CLI with `--fail-severity=warn`, so a warning fails `npm test` and CI.
 */
import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { expect, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"

import { Api } from "../../src/api/Api.js"

const root = join(import.meta.dirname, "../..")

interface SpectralResult {
  readonly code: string | number
  readonly message: string
  readonly path: ReadonlyArray<string | number>
  /** 0 error, 1 warning, 2 information, 3 hint. */
  readonly severity: number
}

/** Runs the installed CLI on the Node that runs the tests, whatever `node` is first on the PATH. */
const spectral = (args: ReadonlyArray<string>) =>
  new Promise<{ readonly exitCode: number; readonly output: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(root, "node_modules/.bin/spectral"), ...args],
      { cwd: root, timeout: 60_000 },
      (error, stdout, stderr) => {
        const exitCode = error === null ? 0 : typeof error.code === "number" ? error.code : -1
        resolve({ exitCode, output: `${stdout}${stderr}` })
      }
    )
  })

it("the OpenAPI document has no Spectral error or warning", async () => {
  const folder = await mkdtemp(join(tmpdir(), "openapi-lint-"))
  try {
    const document = join(folder, "openapi.json")
    const report = join(folder, "spectral.json")
    await writeFile(document, JSON.stringify(OpenApi.fromApi(Api), null, 2))
    const { exitCode, output } = await spectral([
      "lint",
      "--ruleset",
      join(root, ".spectral.yaml"),
      "--fail-severity=warn",
      "--format",
      "json",
      "--output",
      report,
      document
    ])
    const results = JSON.parse(await readFile(report, "utf8")) as ReadonlyArray<SpectralResult>
    const problems = results
      .filter((result) => result.severity <= 1)
      .map((result) => `${result.code} at ${result.path.join(".")}: ${result.message}`)
    expect(problems).toEqual([])
    expect(exitCode, output).toBe(0)
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}, 120_000)
