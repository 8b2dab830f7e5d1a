/**
 * Component groups in the dashboard, in a real browser against the full stack: managing groups on
 * their own screen and putting a component in one from the components screen.
 */
import { describe, expect, it } from "@effect/vitest"

import { expectAccessible, expectFitsViewport, expectStatusMessage, screenshot } from "../../support/Browser.js"
import { useBrowserStack } from "../../support/BrowserStack.js"

const suite = useBrowserStack()
const { api, openScreen } = suite

describe("dashboard component groups", () => {
  it("creates, edits and deletes groups, and assigns a component to one", async () => {
    const database = await api((client) => client.components.create({ payload: { name: "Database" } }))
    await api((client) => client.componentGroups.create({ payload: { name: "Spare" } }))

    const groups = await openScreen("component-groups")
    await groups.getByRole("heading", { name: "Component groups", level: 1 }).waitFor()
    const form = groups.getByRole("form", { name: "New group" })
    await form.getByLabel("Name").fill("Storage")
    await form.getByLabel("Description").fill("Where data lives")
    await form.getByRole("button", { name: "Create group" }).click()
    await expectStatusMessage(groups, "The group Storage was created.")

    const row = groups.getByRole("row").filter({ hasText: "Storage" })
    await row.getByRole("button", { name: "Edit" }).click()
    const edit = row.getByRole("form", { name: "Edit Storage" })
    await edit.getByLabel("Name").fill("Data stores")
    await edit.getByLabel("Shown on the public status page").uncheck()
    await edit.getByRole("button", { name: "Save" }).click()
    await expectStatusMessage(groups, "The group Data stores was saved.")
    await expectAccessible(groups)
    await screenshot(groups, "component-groups")

    const stored = await api((client) => client.componentGroups.list({ query: {} }))
    const dataStores = stored.find((group) => group.name === "Data stores")
    expect(dataStores).toMatchObject({ description: "Where data lives", isPublic: false })

    // The components screen offers the groups: Database joins Data stores.
    const components = await openScreen("components")
    const componentRow = components.getByRole("row").filter({ hasText: "Database" })
    await componentRow.getByRole("button", { name: "Edit" }).click()
    const editComponent = componentRow.getByRole("form", { name: "Edit Database" })
    await editComponent.getByLabel("Group").selectOption({ label: "Data stores" })
    await editComponent.getByRole("button", { name: "Save" }).click()
    await expectStatusMessage(components, "Database was saved.")
    await expect.poll(() => componentRow.textContent()).toContain("In Data stores")
    expect((await api((client) => client.components.list({ query: {} }))).find((c) => c.id === database.id)?.groupId)
      .toBe(dataStores!.id)
    // A new component can be put in a group as it is created.
    const newComponent = components.getByRole("form", { name: "New component" })
    await newComponent.getByLabel("Name").fill("Object store")
    await newComponent.getByLabel("Group").selectOption({ label: "Data stores" })
    await newComponent.getByRole("button", { name: "Create component" }).click()
    await expectStatusMessage(components, "Object store was created.")
    expect(
      (await api((client) => client.components.list({ query: {} }))).find((c) => c.name === "Object store")?.groupId
    )
      .toBe(dataStores!.id)
    await expectAccessible(components)
    await components.close()

    // The groups screen lists each group's components; deleting one ungroups them.
    await groups.reload()
    const dataRow = groups.getByRole("row").filter({ hasText: "Data stores" })
    await expect.poll(() => dataRow.textContent()).toContain("Database, Object store")
    await dataRow.getByRole("button", { name: "Delete" }).click()
    await dataRow.getByRole("button", { name: "Delete Data stores" }).click()
    await expectStatusMessage(groups, "The group Data stores was deleted; its components are ungrouped.")
    expect((await api((client) => client.components.list({ query: {} }))).find((c) => c.id === database.id)?.groupId)
      .toBeNull()
    expect((await api((client) => client.componentGroups.list({ query: {} }))).map((group) => group.name)).toEqual([
      "Spare"
    ])

    // The longer navigation still fits a phone.
    await groups.setViewportSize({ width: 390, height: 844 })
    await groups.reload()
    await groups.getByRole("heading", { name: "Component groups", level: 1 }).waitFor()
    await expect.poll(() => groups.title()).toBe("Component groups · Status admin")
    await expectFitsViewport(groups)
    await expectAccessible(groups)
    await groups.close()
  })
})
