/**
 * The API reference at /docs (the platform's Swagger UI page) in a real browser: it carries a
 * Content-Security-Policy that allows only its own inline script and stylesheet and no framing,
 * and still renders and runs "Try it out" under it without a single violation. The document it
 * shows (/api/v1/openapi.json) carries package.json's version, and the headers and 304 it
 * declares on the public reads are the ones the server sends.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"

import { type Browser, launchBrowser, unexpectedPageErrors } from "../support/Browser.js"
import { startLiveStack } from "../support/LiveStack.js"

let stack: Awaited<ReturnType<typeof startLiveStack>>
let browser: Browser

beforeAll(async () => {
  stack = await startLiveStack()
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await stack?.dispose()
})

const packageJson = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8"))

interface DocumentedResponse {
  readonly headers?: Record<string, { readonly schema: { readonly const?: string } }>
}

describe("API reference page", () => {
  it("serves the document with package.json's version, and public reads answer the headers and 304 it declares", async () => {
    const document = await (await fetch(`${stack.baseUrl}/api/v1/openapi.json`)).json()
    expect(document.info.version).toBe(packageJson.version)
    expect(document.servers).toEqual([{ url: "/", description: expect.any(String) }])
    const reads = Object.entries<{ get?: { responses: Record<string, DocumentedResponse> } }>(document.paths)
      .filter(([path, item]) => path.startsWith("/api/v1/status") && !path.includes("{") && item.get !== undefined)
    expect(reads.length).toBeGreaterThanOrEqual(7)
    for (const [path, item] of reads) {
      const { responses } = item.get!
      const first = await fetch(`${stack.baseUrl}${path}`)
      expect(first.status, path).toBe(200)
      await first.arrayBuffer()
      const etag = first.headers.get("etag")
      expect(etag, path).toBeTruthy()
      const again = await fetch(`${stack.baseUrl}${path}`, { headers: { "if-none-match": etag! } })
      expect(again.status, path).toBe(304)
      expect(await again.text(), path).toBe("")
      for (const [status, answer] of [["200", first], ["304", again]] as const) {
        for (const [name, header] of Object.entries(responses[status]?.headers ?? {})) {
          if (name === "Link") continue // only while more incidents follow
          const sent = answer.headers.get(name)
          expect(sent, `${path} ${status} ${name}`).not.toBeNull()
          if (header.schema.const !== undefined) expect(sent, `${path} ${status} ${name}`).toBe(header.schema.const)
        }
      }
    }
  })

  it("forbids framing and allows only its own inline script and stylesheet, under any spelling of its URL", async () => {
    for (const path of ["/docs", "/Docs", "/docs/"]) {
      const response = await fetch(`${stack.baseUrl}${path}`)
      expect(response.status, path).toBe(200)
      expect(response.headers.get("x-frame-options"), path).toBe("DENY")
      const policy = response.headers.get("content-security-policy") ?? ""
      const directives = new Map(
        policy.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [
          name,
          values
        ])
      )
      expect(directives.get("frame-ancestors"), path).toEqual(["'none'"])
      expect(directives.get("default-src"), path).toEqual(["'none'"])
      for (const directive of ["script-src", "style-src"]) {
        const sources = directives.get(directive) ?? []
        expect(sources.length, `${path} ${directive}`).toBeGreaterThan(0)
        expect(sources.every((source) => /^'sha256-[A-Za-z0-9+/]+=*'$/.test(source)), `${path} ${directive}`).toBe(true)
      }
    }
  })

  it("renders the reference and runs a request under its policy without violations", async () => {
    const page = await browser.context.newPage()
    // Installed through the DevTools protocol, so the page's policy does not apply to it.
    await page.addInitScript(() => {
      const seen: Array<string> = []
      ;(globalThis as unknown as { cspViolations: Array<string> }).cspViolations = seen
      document.addEventListener("securitypolicyviolation", (event) => {
        seen.push(`${event.violatedDirective} ${event.blockedURI}`)
      })
    })
    await page.goto(`${stack.baseUrl}/docs`)
    await page.getByRole("heading", { name: /Status page service/ }).waitFor()
    const operation = page.locator(".opblock-get").filter({ has: page.locator("[data-path='/api/v1/status']") })
    await operation.locator(".opblock-summary-control").click()
    await operation.getByRole("button", { name: "Try it out" }).click()
    await operation.getByRole("button", { name: "Execute" }).click()
    await expect.poll(() =>
      operation.locator(".live-responses-table tr.response .response-col_status").first().textContent()
    )
      .toContain("200")
    expect(await page.evaluate(() => (globalThis as unknown as { cspViolations: Array<string> }).cspViolations))
      .toEqual([])
    expect(unexpectedPageErrors(browser)).toEqual([])
    await page.close()
  })
})
