/**
 * Atlassian's embeddable status widget (`@statuspage/status-widget`, which reads
 * `<src>/api/v2/summary.json`) in Chromium, on a page of another origin pointed at the full stack:
 * it shows our status, and the status an operator sets through the API.
 */
import { readFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"

import { screenshot } from "../support/Browser.js"
import { useBrowserStack } from "../support/BrowserStack.js"

const suite = useBrowserStack()

const widgetScript = join(
  dirname(createRequire(import.meta.url).resolve("@statuspage/status-widget/package.json")),
  "dist/index.js"
)

/** A site embedding the widget, on its own loopback port: another origin than the stack's. */
let site: Server
let siteUrl: string

beforeAll(async () => {
  const script = await readFile(widgetScript)
  site = createServer((request, response) => {
    if (request.url === "/status-widget.js") {
      response.writeHead(200, { "content-type": "text/javascript" }).end(script)
      return
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
      `<!doctype html><html lang="en"><head><title>Embedding site</title></head><body>` +
        `<statuspage-widget src="${suite.stack.baseUrl}"></statuspage-widget>` +
        // The published bundle assigns the undeclared global `parcelRequire` in strict mode: it
        // works, then throws a ReferenceError, unless the page declares the global first.
        `<script>var parcelRequire;</script><script src="/status-widget.js"></script></body></html>`
    )
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  const address = site.address()
  if (address === null || typeof address === "string") throw new Error("the embedding site is not on TCP")
  siteUrl = `http://127.0.0.1:${address.port}/`
})

afterAll(async () => {
  // The browser, closed after this, keeps its connections alive.
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
})

describe("Statuspage's status widget", () => {
  it("shows our page's status, and a major outage set through the API", async () => {
    const web = await suite.api((client) => client.components.create({ payload: { name: "Web" } }))
    await suite.api((client) => client.components.create({ payload: { name: "API" } }))

    const page = await suite.browser.context.newPage()
    await page.goto(siteUrl)
    const text = page.locator("statuspage-widget .status-text")
    const indicator = page.locator("statuspage-widget .status-indicator")
    await expect.poll(() => text.textContent()).toBe("All Systems Operational")
    expect(await indicator.getAttribute("class")).toContain("none")
    // It links to the page it reads.
    expect(await page.locator("statuspage-widget a").getAttribute("href")).toBe(suite.stack.baseUrl)

    await suite.api((client) =>
      client.components.setStatus({ params: { id: web.id }, payload: { status: "major_outage" } })
    )
    // The widget reads the summary once per page load (and keeps it 30 s), and the browser may reuse
    // the answer for its `max-age` (5 s): a reader sees the change at a load after that.
    await expect.poll(async () => {
      await page.reload()
      return text.textContent()
    }, { timeout: 20_000 }).toBe("Partial System Outage")
    expect(await indicator.getAttribute("class")).toContain("major")
    await screenshot(page, "statuspage-widget-major-outage")
    await page.close()
  })
})
