/**
 * The JSON assertions editor of the monitor form in a real browser against the full stack: rows
 * added, filled and removed, the API's objection shown under the editor, the values read as JSON
 * or as text, the detail listing them, and the edit form showing them again; axe-core clean.
 */
import { describe, expect, it } from "@effect/vitest"

import { expectAccessible } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

describe("monitor JSON assertions in the dashboard", () => {
  it("adds, edits and removes assertions, and shows the API's objection under them", async () => {
    await api((client) => client.components.create({ payload: { name: "Orders" } }))
    const page = await openScreen("monitors")
    const form = page.getByRole("form", { name: "New monitor" })
    await form.getByLabel("Component").selectOption({ label: "Orders" })
    await form.getByLabel("Check").selectOption("http")
    await form.getByLabel("URL").fill("https://orders.example.test/health")
    const editor = form.getByRole("group", { name: "JSON assertions" })
    const row = (n: number) => editor.getByRole("group", { name: `Assertion ${n}` })
    for (let n = 0; n < 3; n++) await editor.getByRole("button", { name: "Add assertion" }).click()
    await row(1).getByLabel("JSON path").fill("$.status")
    await row(1).getByLabel("Value to compare").fill("ok")
    await row(2).getByLabel("JSON path").fill("/data/count")
    await row(2).getByLabel("Comparison").selectOption(">")
    await row(2).getByLabel("Value to compare").fill("2")
    await row(3).getByLabel("JSON path").fill("$.version")
    await row(3).getByLabel("Comparison").selectOption("matches")
    await row(3).getByLabel("Pattern").fill("(a+)+")
    await form.getByRole("button", { name: "Create monitor" }).click()
    // A pattern that can backtrack for ever: the API refuses it, and the editor says why.
    const error = form.locator("#new-monitor-assertions-error")
    await expect.poll(() => error.textContent()).toBe(
      "Value must not repeat a part that repeats itself, such as (a+)+: such a pattern can take exponential time"
    )
    expect(await editor.getAttribute("aria-describedby")).toContain("new-monitor-assertions-error")
    await expectAccessible(page)

    await row(3).getByLabel("Pattern").fill("^2\\.")
    await editor.getByRole("button", { name: "Add assertion" }).click()
    await row(4).getByLabel("JSON path").fill("/error")
    await row(4).getByLabel("Comparison").selectOption("exists")
    await row(4).getByLabel("Value to compare").fill("false")
    // Removing a row moves the focus to the Remove button now in its place.
    await row(1).getByRole("button", { name: "Remove assertion 1" }).click()
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      "Remove assertion 1"
    )
    await form.getByRole("button", { name: "Create monitor" }).click()
    await expect.poll(() =>
      page.getByText("The monitor of https://orders.example.test/health was created.").isVisible()
    )
      .toBe(true)
    const stored = (await api((client) => client.monitors.list({ query: {} }))).find((m) =>
      m.url === "https://orders.example.test/health"
    )
    // "2" typed is the number 2; "false" for exists is the boolean; a pattern is kept as typed.
    expect(stored?.assertions).toEqual([
      { path: "/data/count", op: ">", value: 2 },
      { path: "$.version", op: "matches", value: "^2\\." },
      { path: "/error", op: "exists", value: false }
    ])

    await page.getByRole("button", { name: "Details of Orders https://orders.example.test/health" }).click()
    const detail = page.getByRole("region", { name: "Orders https://orders.example.test/health" })
    expect(await detail.textContent()).toContain(
      "JSON: /data/count > 2; $.version matches \"^2\\\\.\"; /error does not exist"
    )
    await detail.getByRole("button", { name: "Edit" }).click()
    const edit = detail.getByRole("form")
    const editRow = (n: number) => edit.getByRole("group", { name: `Assertion ${n}` })
    expect(await editRow(2).getByLabel("Pattern").inputValue()).toBe("^2\\.")
    // Removing the last row moves the focus to Add; a quoted value is text, though it reads as a number.
    await editRow(3).getByRole("button", { name: "Remove assertion 3" }).click()
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Add assertion")
    await edit.getByRole("button", { name: "Add assertion" }).click()
    await editRow(3).getByLabel("JSON path").fill("$.build")
    await editRow(3).getByLabel("Value to compare").fill("\"42\"")
    await edit.getByRole("button", { name: "Save" }).click()
    await expect.poll(() => page.getByText("The monitor of https://orders.example.test/health was saved.").isVisible())
      .toBe(true)
    expect((await api((client) => client.monitors.list({ query: {} }))).find((m) => m.id === stored!.id)?.assertions)
      .toEqual([
        { path: "/data/count", op: ">", value: 2 },
        { path: "$.version", op: "matches", value: "^2\\." },
        { path: "$.build", op: "==", value: "42" }
      ])
    await expectAccessible(page)
    await page.close()
  })
})
