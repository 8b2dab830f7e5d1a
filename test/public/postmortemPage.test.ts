/**
 * Postmortems in a real browser: written and published from the dashboard on a resolved
 * incident, rendered from Markdown on the public incident page, with hostile markup shown as
 * text, unsafe links dropped and nothing run.
 */
import { describe, expect, it } from "@effect/vitest"

import { expectAccessible, expectStatusMessage } from "../support/Browser.js"
import { useBrowserStack } from "../support/BrowserStack.js"

const suite = useBrowserStack()

const markdown = [
  "## What happened",
  "A **bad deploy** broke `/login` for *twelve* minutes.",
  "",
  "- Rolled back",
  "- Added a [canary](https://example.com/canary)",
  "",
  "<script>window.__owned = true</script><img src=x onerror=\"window.__owned = true\">",
  "[do not click](javascript:window.__owned=true)"
].join("\n")

describe("postmortem on the public incident page", () => {
  it("is written in the dashboard, hidden as a draft and rendered safely once published", async () => {
    const incident = await suite.api((client) =>
      client.incidents.create({ payload: { title: "Login outage", message: "Logins fail." } })
    )
    await suite.api((client) => client.incidents.resolve({ params: { id: incident.id }, payload: null }))

    const admin = await suite.openScreen("incidents")
    await admin.getByRole("button", { name: "Write postmortem of Login outage" }).click()
    const editor = admin.getByRole("form", { name: "Postmortem of Login outage" })
    await editor.getByLabel("Postmortem (Markdown)").fill(markdown)
    await editor.getByRole("button", { name: "Save postmortem" }).click()
    await expectStatusMessage(admin, "The postmortem of Login outage was saved as a draft.")

    const visitor = await suite.browser.context.newPage()
    const incidentPage = `${suite.stack.baseUrl}/incidents/${incident.id}`
    await visitor.goto(incidentPage)
    await expect(visitor.getByRole("heading", { name: "Postmortem" }).count()).resolves.toBe(0)

    await admin.getByRole("button", { name: "Edit postmortem of Login outage" }).click()
    await editor.getByLabel("Published on the status page").check()
    await editor.getByRole("button", { name: "Save postmortem" }).click()
    await expectStatusMessage(admin, "The postmortem of Login outage was published.")
    await admin.close()

    await expect.poll(async () => {
      await visitor.goto(incidentPage)
      return visitor.getByRole("heading", { name: "Postmortem" }).count()
    }, { timeout: 5000 }).toBe(1)
    const section = visitor.locator("section.postmortem")
    await expect(section.getByRole("heading", { name: "What happened", level: 4 }).count()).resolves.toBe(1)
    await expect(section.locator("strong").textContent()).resolves.toBe("bad deploy")
    await expect(section.locator("code").textContent()).resolves.toBe("/login")
    await expect(section.locator("li").allTextContents()).resolves.toEqual(["Rolled back", "Added a canary"])
    const canary = section.getByRole("link", { name: "canary" })
    await expect(canary.getAttribute("href")).resolves.toBe("https://example.com/canary")
    await expect(canary.getAttribute("rel")).resolves.toBe("nofollow noopener")

    // Hostile markup is text, the javascript: link is no link, and nothing ran.
    await expect(section.textContent()).resolves.toContain("<script>window.__owned = true</script>")
    await expect(section.locator("script, img").count()).resolves.toBe(0)
    await expect(section.getByRole("link", { name: "do not click" }).count()).resolves.toBe(0)
    await expect(visitor.evaluate(() => (window as { __owned?: boolean }).__owned)).resolves.toBeUndefined()
    await expectAccessible(visitor)
    await visitor.close()
  })
})
