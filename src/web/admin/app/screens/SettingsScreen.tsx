/**
 * Settings: the organization profile (owners change it, the others read it) and the API keys
 * (admins and owners).
 */
import { DateTime, Effect, Schema } from "effect"
import { useState } from "preact/hooks"

import { withIfMatch } from "../../../../client/IfMatch.js"
import { everyItem } from "../../../../client/Pages.js"
import type { ApiKey, CreatedApiKey } from "../../../../domain/Auth.js"
import { type Organization, UpdateOrganization } from "../../../../domain/Organization.js"
import { atLeast, type Role, roles } from "../../../../domain/Role.js"
import { roleLabel, useAccess, useCan } from "../core/access.js"
import type { Screen } from "../core/Screen.js"
import { ConfirmButton, FailureMessage, Loading, StatusMessage, When } from "../ui/feedback.js"
import { SelectField, TextField } from "../ui/fields.js"
import { useListScreen, useLoad, useSubmit } from "../ui/requests.js"
import { ResourceForm, ResourceTable, useRowActions } from "../ui/resources.js"

type OrganizationJson = typeof Organization.json.Type

const timeZones: ReadonlyArray<string> = Intl.supportedValuesOf?.("timeZone") ?? []

const OrganizationForm = (
  { etag, organization }: { readonly organization: OrganizationJson; readonly etag: string | undefined }
) => {
  const [name, setName] = useState(organization.name)
  const [logoUrl, setLogoUrl] = useState(organization.logoUrl ?? "")
  const [brandColor, setBrandColor] = useState(organization.brandColor)
  const [timezone, setTimezone] = useState(organization.timezone)
  const [reminderHours, setReminderHours] = useState(String(organization.maintenanceReminderHours))
  const [message, setMessage] = useState("")
  const { failure, busy, submit, fieldError } = useSubmit()

  const save = async () => {
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
        (decoded) =>
          api.organization.update({ params: { id: organization.id }, payload: decoded }).pipe(withIfMatch(etag))
      )
    )
    if (outcome.ok) setMessage("The organization profile was saved.")
  }

  return (
    <ResourceForm
      id="organization"
      message={message}
      failure={failure}
      busy={busy}
      submitLabel="Save profile"
      onSubmit={save}
    >
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
    </ResourceForm>
  )
}

/** The profile as it is, for a role that may not change it. */
const OrganizationProfile = ({ organization }: { readonly organization: OrganizationJson }) => (
  <dl class="profile">
    <dt>Name</dt>
    <dd>{organization.name}</dd>
    <dt>Logo URL</dt>
    <dd>{organization.logoUrl ?? <span class="muted">none</span>}</dd>
    <dt>Brand colour</dt>
    <dd>
      <code>{organization.brandColor}</code>
    </dd>
    <dt>Time zone</dt>
    <dd>{organization.timezone}</dd>
    <dt>Maintenance reminder</dt>
    <dd>
      {organization.maintenanceReminderHours === 0
        ? "none"
        : `${organization.maintenanceReminderHours} hours before the start`}
    </dd>
  </dl>
)

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

const ApiKeyRow = (props: { readonly apiKey: ApiKeyJson; readonly onChanged: (message: string) => void }) => {
  const key = props.apiKey
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()
  const remove = () =>
    act((api) => api.apiKeys.remove({ params: { id: key.id } }), () => `The key ${key.name} was deleted.`)
  return (
    <tr>
      <th scope="row">
        {key.name}
        <FailureMessage failure={failure} />
      </th>
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
      <td>{roleLabel[key.role]}</td>
      <td>
        {can("apiKeys.remove") && (
          <ConfirmButton label="Delete" confirmLabel={`Delete ${key.name}`} onConfirm={remove} />
        )}
      </td>
    </tr>
  )
}

const ApiKeys = () => {
  const { loaded, reload, message, changed } = useListScreen((api) => everyItem(api.apiKeys.list))
  const [name, setName] = useState("")
  const [expiresAt, setExpiresAt] = useState("")
  // A key can do no more than its creator: the roles offered stop at the user's own.
  const { role: myRole } = useAccess()
  const keyRoles = roles.filter((role) => atLeast(myRole, role)).map((role) => ({
    value: role,
    label: roleLabel[role]
  }))
  const [role, setRole] = useState<Role>(myRole)
  const [created, setCreated] = useState<typeof CreatedApiKey.Type | null>(null)
  const { failure, busy, submit, fieldError } = useSubmit()

  const save = async () => {
    setCreated(null)
    // datetime-local is the browser's local time; the API wants a UTC instant.
    const expiry = expiresAt === "" ? undefined : new Date(expiresAt)
    const payload = expiry === undefined || Number.isNaN(expiry.getTime())
      ? { name: name.trim(), role }
      : { name: name.trim(), role, expiresAt: DateTime.makeUnsafe(expiry) }
    const outcome = await submit((api) => api.apiKeys.create({ payload }))
    if (outcome.ok) {
      setCreated(outcome.value)
      setName("")
      setExpiresAt("")
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
      <ResourceTable
        loaded={loaded}
        caption="API keys"
        columns={["Name", "Prefix", "Created", "Last used", "Expires", "Role", "Actions"]}
        empty="No API keys yet. Create one below for your automation or the command line."
      >
        {(key) => <ApiKeyRow key={key.id} apiKey={key} onChanged={changed} />}
      </ResourceTable>
      {created && <NewKey created={created} />}
      <h3 id="new-key-form-title">New API key</h3>
      <ResourceForm id="new-key-form" failure={failure} busy={busy} submitLabel="Create API key" onSubmit={save}>
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
        <SelectField
          id="key-role"
          label="Role"
          value={role}
          options={keyRoles}
          onChange={setRole}
          hint="What the key may do; never more than you."
          error={fieldError("role")}
        />
      </ResourceForm>
    </section>
  )
}

const SettingsView = () => {
  const [organization] = useLoad((api) => api.organization.get({ responseMode: "decoded-and-response" }))
  const can = useCan()
  return (
    <>
      <h1>Settings</h1>
      <section aria-labelledby="organization-title">
        <h2 id="organization-title">Organization profile</h2>
        <Loading loaded={organization}>
          {([value, response]) =>
            can("organization.update")
              ? <OrganizationForm organization={value} etag={response.headers["etag"]} />
              : <OrganizationProfile organization={value} />}
        </Loading>
      </section>
      {can("apiKeys.list") && <ApiKeys />}
    </>
  )
}

export const SettingsScreen: Screen = {
  path: "settings",
  group: "settings",
  needs: "organization.get",
  title: "Settings",
  View: SettingsView
}
