/**
 * Screenshots for the README, taken from the real service: starts `src/main.ts` on the embedded
 * database in a fresh temporary DATA_DIR on a free 127.0.0.1 port, seeds a small, realistic page
 * through the admin API (organization, components, an open incident with updates, a resolved
 * one, a maintenance window), and photographs it with headless Chromium driven by
 * playwright-core:
 *
 *   docs/images/status-page.png         the public status page, 1200 px wide
 *   docs/images/status-page-mobile.png  the same page, 390 px wide
 *   docs/images/status-pages.png        two pages of one deployment side by side: the default
 *                                       page and a partners' page in German with its own look
 *   docs/images/dashboard.png           the admin dashboard's Overview in an outage, 1280 px wide,
 *                                       with the update form of the open incident opened in place
 *   docs/images/dashboard-phone.png     the same at 390 px (a phone)
 *
 * Run: `npm run screenshots` (or `npx tsx scripts/screenshots.ts`). Needs Chromium at
 * /usr/bin/chromium (Debian's `chromium` package) or at CHROMIUM_PATH. Stops the service and
 * removes its data on success and failure alike. Takes about 1.5 minutes: it waits for the
 * scheduler's once-a-minute uptime rollup so today's cell of each uptime bar is drawn.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

import { chromium } from "playwright-core"

const root = fileURLToPath(new URL("..", import.meta.url))
const outDir = join(root, "docs/images")
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const admin = { email: "admin@example.com", password: "screenshot passphrase 1" }

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** A whole hour `hours` from now, as the API wants it: `2030-01-31T09:00:00Z`. */
const iso = (hours: number) =>
  new Date(Math.round(Date.now() / 3_600_000 + hours) * 3_600_000).toISOString().replace(".000Z", "Z")

const dataDir = mkdtempSync(join(tmpdir(), "sps-screenshots-"))
const port = await freePort()
const base = `http://127.0.0.1:${port}`
// One process (node --import tsx), so SIGTERM reaches the service itself.
const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
  cwd: root,
  env: {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    HOST: "127.0.0.1",
    PORT: String(port),
    PUBLIC_URL: base,
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    REDIS_URL: "",
    SMTP_URL: "",
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password
  },
  stdio: ["ignore", "pipe", "pipe"]
})
let log = ""
for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => (log += chunk))
const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))

const stopService = async () => {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM")
    if ((await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)])) === false) {
      child.kill("SIGKILL")
    }
    await exited
  }
  rmSync(dataDir, { recursive: true, force: true })
}

const waitForReady = async (timeoutMs = 60_000) => {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(250)) {
    if (child.exitCode !== null) throw new Error(`The service exited with ${child.exitCode}:\n${log}`)
    if (await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false)) return
  }
  throw new Error(`${base}/readyz did not answer 200 within ${timeoutMs / 1000} s:\n${log}`)
}

let cookie = ""
const api = async <A = { id: string }>(method: string, path: string, body?: unknown): Promise<A> => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000)
  })
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`)
  if (path === "/api/v1/auth/signin") cookie = response.headers.get("set-cookie")!.split(";")[0]!
  return (response.status === 204 ? undefined : await response.json()) as A
}

const seed = async () => {
  await api("POST", "/api/v1/auth/signin", admin)
  const org = await api("GET", "/api/v1/admin/org")
  await api("PUT", `/api/v1/admin/org/${org.id}`, {
    name: "Acme Cloud",
    brandColor: "#4338ca",
    timezone: "Europe/Amsterdam"
  })
  const components: Record<string, string> = {}
  for (
    const [name, description] of [
      ["Website", "acme.example and the documentation"],
      ["API", "REST and GraphQL endpoints"],
      ["Dashboard", "The customer console"],
      ["Payments", "Card and SEPA processing"],
      ["E-mail delivery", "Transactional and notification mail"]
    ] as const
  ) components[name] = (await api("POST", "/api/v1/admin/components", { name, description })).id

  const resolved = await api("POST", "/api/v1/admin/incidents", {
    title: "Delayed password-reset e-mails",
    severity: "minor",
    componentIds: [components["E-mail delivery"]],
    message: "Some password-reset e-mails are arriving up to 20 minutes late. We are looking into it."
  })
  await api("PATCH", `/api/v1/admin/incidents/${resolved.id}/resolve`, {
    message: "The mail queue has drained and e-mails are delivered on time again."
  })
  const incident = await api("POST", "/api/v1/admin/incidents", {
    title: "Elevated card payment failures",
    severity: "major",
    componentIds: [components["Payments"], components["API"]],
    message: "We are seeing an increased rate of declined card payments in Europe and are investigating."
  })
  for (
    const [status, message] of [
      [
        "identified",
        "The failures come from one of our card processors. We are routing traffic to a second processor."
      ],
      ["monitoring", "Most payments succeed again; API latency is still higher than usual while we watch the fix."]
    ]
  ) await api("POST", `/api/v1/admin/incidents/${incident.id}/updates`, { status, message })
  await api("POST", "/api/v1/admin/maintenance", {
    title: "Database upgrade",
    scheduledStart: iso(30),
    scheduledEnd: iso(32),
    componentIds: [components["Dashboard"], components["API"]],
    description: "We are upgrading our primary database. The dashboard may be read-only for a few minutes."
  })
  // A second page for payment partners: two components, its own look, in German (English offered).
  await api("POST", "/api/v1/admin/pages", {
    slug: "payments",
    title: "Acme Payments",
    description: "Status der Zahlungsdienste für unsere Partner.",
    brandColor: "#0f766e",
    locale: "de",
    languages: ["de", "en"],
    items: [{ type: "component", id: components["Payments"] }, { type: "component", id: components["API"] }]
  })
  return components
}

/** The page draws uptime bars from rollups the scheduler writes once a minute: wait for today's cells (up to 3 min). */
const waitForUptime = async (timeoutMs = 180_000) => {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(2_000)) {
    const html = await fetch(`${base}/`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.text())
    if (!html.includes("No uptime data yet")) return
  }
  console.warn("The uptime bars still had no data; taking the screenshots anyway.")
}

const shoot = async () => {
  mkdirSync(outDir, { recursive: true })
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu"]
  })
  try {
    const written: Array<string> = []
    const save = async (page: import("playwright-core").Page, name: string) => {
      const path = join(outDir, name)
      await page.screenshot({ path, fullPage: true, animations: "disabled" })
      written.push(`${path.slice(root.length)} (${Math.round(statSync(path).size / 1024)} kB)`)
    }
    const desktop = await browser.newPage({
      viewport: { width: 1200, height: 800 },
      deviceScaleFactor: 1,
      timezoneId: "Europe/Amsterdam"
    })
    await desktop.goto(`${base}/`)
    await save(desktop, "status-page.png")

    const mobile = await browser.newPage({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 1,
      isMobile: true,
      hasTouch: true
    })
    await mobile.goto(`${base}/`)
    await save(mobile, "status-page-mobile.png")

    // Two pages of one deployment, the top of each, side by side with their addresses.
    const top = async (path: string) => {
      await desktop.goto(`${base}${path}`)
      return (await desktop.screenshot({ clip: { x: 0, y: 0, width: 1200, height: 1000 } })).toString("base64")
    }
    // The partners' page in its own language: a browser here asks for English, which the page offers too.
    const [main, partners] = [await top("/"), await top("/p/payments/?lang=de")]
    const pair = await browser.newPage({ viewport: { width: 1640, height: 400 }, deviceScaleFactor: 1 })
    await pair.setContent(
      `<body style="margin:0;padding:16px;display:flex;gap:16px;background:#eaeef2;font:15px system-ui,sans-serif">${
        [["/", main], ["/p/payments/", partners]].map(([path, png]) =>
          `<figure style="margin:0;flex:1"><img style="width:100%;border:1px solid #d0d7de;display:block" ` +
          `src="data:image/png;base64,${png}"><figcaption style="padding:6px 2px;color:#57606a">status.example.com${path}</figcaption></figure>`
        ).join("")
      }</body>`
    )
    await save(pair, "status-pages.png")

    // The dashboard where an operator lands in an outage: the overview, about to post an update.
    const dashboard = async (width: number, height: number, file: string) => {
      const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 })
      await page.goto(`${base}/admin`)
      await page.getByLabel("E-mail").fill(admin.email)
      await page.getByLabel("Password").fill(admin.password)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
      await page.getByRole("button", { name: "Post update on Elevated card payment failures" }).click()
      await page.getByLabel("Message").fill("The fix is rolling out; error rates are falling.")
      await save(page, file)
      await page.close()
    }
    await dashboard(1280, 900, "dashboard.png")
    await dashboard(390, 844, "dashboard-phone.png")
    return written
  } finally {
    await browser.close()
  }
}

try {
  await waitForReady()
  const components = await seed()
  // Today's uptime cells come first (clean, 100 %); the outage starts just before the pictures.
  await waitForUptime()
  await api("PATCH", `/api/v1/admin/components/${components["Payments"]}/status`, { status: "partial_outage" })
  await api("PATCH", `/api/v1/admin/components/${components["API"]}/status`, { status: "degraded" })
  const written = await shoot()
  console.log(`Wrote:\n${written.map((line) => `  ${line}`).join("\n")}`)
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
} finally {
  await stopService()
}
