/** Settings: the organization profile and the API keys. */
import { DateTime, Effect, Schema } from "effect"
import { useState } from "preact/hooks"

import type { ApiKey, CreatedApiKey } from "../../../../domain/Auth.js"
import { type Organization, UpdateOrganization } from "../../../../domain/Organization.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { ConfirmButton, FailureMessage, Loading, StatusMessage, Table, When } from "../ui/feedback.js"
import { TextField } from "../ui/fields.js"
import { useLoad, useSubmit } from "../ui/requests.js"
import type { Screen } from "./Screen.js"

type OrganizationJson = typeof Organization.json.Type

const timeZones: ReadonlyArray<string> = Intl.supportedValuesOf?.("timeZone") ?? []

const OrganizationForm = ({ organization }: { readonly organization: OrganizationJson }) => {
  const [name, setName] = useState(organization.name)
  const [logoUrl, setLogoUrl] = useState(organization.logoUrl ?? "")
  const [brandColor, setBrandColor] = useState(organization.brandColor)
  const [timezone, setTimezone] = useState(organization.timezone)
  const [reminderHours, setReminderHours] = useState(String(organization.maintenanceReminderHours))
  const [message, setMessage] = useState("")
  const { failure, busy, submit, fieldError } = useSubmit()

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    setMessage("")
    const payload = {
      name: name.trim(),
      logoUrl: logoUrl.trim() === "" ? null : logoUrl.trim(),
      brandColor: brandColor.trim(),
      timezone: timezone.trim(),
      // Text that is not a number is passed on for the schema to name.
      maintenanceReminderHours: /^\s*\d+\s*$/.test(reminderHours) ? Number(reminderHours) : reminderHours.trim()
    }
    const outcome = await submit((api) =>
      Effect.flatMap(
        Schema.decodeUnknownEffect(UpdateOrganization)(payload),
        (decoded) => api.organization.update({ params: { id: organization.id }, payload: decoded })
      )
    )
    if (outcome.ok) setMessage("The organization profile was saved.")
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-labelledby="organization-title">
      <StatusMessage text={message} />
      <FailureMessage failure={failure} />
      <TextField id="org-name" label="Name" required value={name} onInput={setName} error={fieldError("name")} />
      <TextField
        id="org-logo"
        label="Logo URL"
        type="url"
        inputMode="url"
        value={logoUrl}
        onInput={setLogoUrl}
        hint="An absolute http(s) address; leave empty for no logo."
        error={fieldError("logoUrl")}
      />
      <TextField
        id="org-color"
        label="Brand colour"
        value={brandColor}
        onInput={setBrandColor}
        hint="Six hex digits, such as #2563eb."
        error={fieldError("brandColor")}
      />
      <TextField
        id="org-timezone"
        label="Time zone"
        list="time-zones"
        value={timezone}
        onInput={setTimezone}
        hint="An IANA name such as Europe/Paris or UTC."
        error={fieldError("timezone")}
      />
      <datalist id="time-zones">{timeZones.map((zone) => <option key={zone} value={zone} />)}</datalist>
      <TextField
        id="org-reminder-hours"
        label="Maintenance reminder (hours before the start)"
        type="number"
        inputMode="numeric"
        value={reminderHours}
        onInput={setReminderHours}
        hint="Subscribers and webhooks are reminded of a scheduled window this many hours before it starts; 0 to 720, 0 for no reminders."
        error={fieldError("maintenanceReminderHours")}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>Save profile</button>
      </div>
    </form>
  )
}

type ApiKeyJson = typeof ApiKey.json.Type

/** The new key, shown this once with a copy button: the server keeps only its hash. */
const NewKey = ({ created }: { readonly created: typeof CreatedApiKey.Type }) => {
  const [copied, setCopied] = useState("")
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key)
      setCopied("Copied to the clipboard.")
    } catch {
      setCopied("Copying is not allowed here: select the key and copy it by hand.")
    }
  }
  return (
    <div class="reveal" role="region" aria-labelledby="new-key-title">
      <h3 id="new-key-title">API key “{created.name}” created</h3>
      <p>Copy it now: it is shown only this once.</p>
      <output class="secret" aria-label="New API key">{created.key}</output>
      <div class="actions">
        <button type="button" onClick={copy}>Copy key</button>
        <span role="status">{copied}</span>
      </div>
    </div>
  )
}

const ApiKeys = () => {
  const [loaded, reload] = useLoad((api) => api.apiKeys.list())
  const [name, setName] = useState("")
  const [expiresAt, setExpiresAt] = useState("")
  const [created, setCreated] = useState<typeof CreatedApiKey.Type | null>(null)
  const [message, setMessage] = useState("")
  const [rowFailure, setRowFailure] = useState<Failure | null>(null)
  const { failure, busy, submit, fieldError } = useSubmit()

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    setCreated(null)
    // datetime-local is the browser's local time; the API wants a UTC instant.
    const expiry = expiresAt === "" ? undefined : new Date(expiresAt)
    const payload = expiry === undefined || Number.isNaN(expiry.getTime())
      ? { name: name.trim() }
      : { name: name.trim(), expiresAt: DateTime.makeUnsafe(expiry) }
    const outcome = await submit((api) => api.apiKeys.create({ payload }))
    if (outcome.ok) {
      setCreated(outcome.value)
      setName("")
      setExpiresAt("")
      void reload()
    }
  }
  const remove = async (key: ApiKeyJson) => {
    const outcome = await call((api) => api.apiKeys.remove({ params: { id: key.id } }))
    setRowFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) {
      setMessage(`The key ${key.name} was deleted.`)
      void reload()
    }
  }

  return (
    <section aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">API keys</h2>
      <p class="muted">
        Keys authenticate automation: send <code>Authorization: Bearer svc_…</code>.
      </p>
      <StatusMessage text={message} />
      <FailureMessage failure={rowFailure} />
      <Loading loaded={loaded}>
        {(keys) =>
          keys.length === 0 ? <p>No API keys yet.</p> : (
            <Table caption="API keys">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.id}>
                    <th scope="row">{key.name}</th>
                    <td>
                      <code>{key.prefix}…</code>
                    </td>
                    <td>
                      <When at={key.createdAt} />
                    </td>
                    <td>
                      <When at={key.lastUsedAt} />
                    </td>
                    <td>
                      <When at={key.expiresAt} never="no expiry" />
                    </td>
                    <td>
                      <ConfirmButton label="Delete" confirmLabel={`Delete ${key.name}`} onConfirm={() => remove(key)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
      </Loading>
      {created && <NewKey created={created} />}
      <h3 id="new-key-form-title">New API key</h3>
      <form onSubmit={onSubmit} noValidate aria-labelledby="new-key-form-title">
        <FailureMessage failure={failure} />
        <TextField id="key-name" label="Name" required value={name} onInput={setName} error={fieldError("name")} />
        <TextField
          id="key-expires"
          label="Expires at"
          type="datetime-local"
          value={expiresAt}
          onInput={setExpiresAt}
          hint="Your local time; leave empty for a key that does not expire."
          error={fieldError("expiresAt")}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>Create API key</button>
        </div>
      </form>
    </section>
  )
}

const SettingsView = () => {
  const [organization] = useLoad((api) => api.organization.get())
  return (
    <>
      <h1>Settings</h1>
      <section aria-labelledby="organization-title">
        <h2 id="organization-title">Organization profile</h2>
        <Loading loaded={organization}>{(value) => <OrganizationForm organization={value} />}</Loading>
      </section>
      <ApiKeys />
    </>
  )
}

export const SettingsScreen: Screen = { path: "settings", title: "Settings", View: SettingsView }
