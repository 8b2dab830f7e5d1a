/**
 * Status pages: the list with each page's public address (open it, copy it), creating and
 * editing a page (its address, look, languages, audience, footer links, and which groups and
 * components it shows in which order, with a preview), making one the default, deleting.
 */
import { useState } from "preact/hooks"

import { withIfMatch } from "../../../../client/IfMatch.js"
import { everyItem } from "../../../../client/Pages.js"
import type { Component } from "../../../../domain/Component.js"
import type { ComponentGroup } from "../../../../domain/ComponentGroup.js"
import { type Locale, locales } from "../../../../domain/Locale.js"
import type { Audience, FooterLink, PageItem, StatusPage } from "../../../../domain/StatusPage.js"
import { mayChangePage, useAccess, useCan } from "../core/access.js"
import type { Screen } from "../core/Screen.js"
import { ConfirmButton, FailureMessage } from "../ui/feedback.js"
import { Fieldset, SelectField, TextArea, TextField } from "../ui/fields.js"
import { PageItemsEditor } from "../ui/PageItemsEditor.js"
import { useComponentChoices, useListScreen, useLoad, useSubmit } from "../ui/requests.js"
import {
  FreshEditor,
  InlineSection,
  NewSection,
  ResourceForm,
  type ResourceFormProps,
  ResourcePage,
  ResourceTable,
  useOpenPart,
  useRowActions
} from "../ui/resources.js"

type ComponentJson = typeof Component.json.Type
type GroupJson = typeof ComponentGroup.json.Type

/** Each language by its own name, as its readers look for it. */
const localeNames: Record<Locale, string> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
  "pt-BR": "Português (Brasil)",
  ja: "日本語",
  "zh-CN": "简体中文"
}

const audiences: ReadonlyArray<{ readonly value: Audience; readonly label: string }> = [
  { value: "public", label: "Public: anyone reads it" },
  { value: "protected", label: "Protected: readers enter a password" }
]

const maxFooterLinks = 10

const timeZones: ReadonlyArray<string> = Intl.supportedValuesOf?.("timeZone") ?? []

/**
 * Where readers find the page: the default page at the site's root, a page with a domain at that
 * host, any other at `/p/<slug>/` (it answers there too, whatever else it has).
 */
export const pageAddress = (page: StatusPage, origin: string) =>
  page.isDefault ? `${origin}/` : page.domain !== null ? `https://${page.domain}/` : `${origin}/p/${page.slug}/`

const optional = (text: string) => text.trim() === "" ? null : text.trim()

/** A footer link being edited; `key` keeps each row's fields apart while rows come and go. */
interface LinkDraft {
  readonly key: number
  readonly label: string
  readonly url: string
}

const FooterLinksEditor = (props: {
  readonly id: string
  readonly links: ReadonlyArray<LinkDraft>
  readonly onChange: (links: ReadonlyArray<LinkDraft>) => void
  readonly error?: string | undefined
}) => {
  const { id, links } = props
  const change = (key: number, part: Partial<LinkDraft>) =>
    props.onChange(links.map((link) => link.key === key ? { ...link, ...part } : link))
  const add = () =>
    props.onChange([...links, { key: Math.max(0, ...links.map((link) => link.key)) + 1, label: "", url: "" }])
  return (
    <Fieldset legend="Footer links">
      {links.length === 0 && <p class="muted">None: the footer shows no links.</p>}
      {links.map((link, index) => (
        <div key={link.key} class="field">
          <TextField
            id={`${id}-link-${link.key}-label`}
            label={`Link ${index + 1} label`}
            value={link.label}
            onInput={(label) => change(link.key, { label })}
          />
          <TextField
            id={`${id}-link-${link.key}-url`}
            label={`Link ${index + 1} address`}
            type="url"
            inputMode="url"
            value={link.url}
            onInput={(url) => change(link.key, { url })}
          />
          <div class="actions">
            <button type="button" onClick={() => props.onChange(links.filter((other) => other.key !== link.key))}>
              Remove link {index + 1}
            </button>
          </div>
        </div>
      ))}
      {props.error && <p class="field-error">{props.error}</p>}
      <div class="actions">
        <button type="button" disabled={links.length >= maxFooterLinks} onClick={add}>Add a link</button>
      </div>
    </Fieldset>
  )
}

/** The languages offered besides the page's own, which is always offered. */
const LanguagesField = (props: {
  readonly id: string
  readonly locale: Locale
  readonly languages: ReadonlyArray<Locale>
  readonly onChange: (languages: ReadonlyArray<Locale>) => void
  readonly error?: string | undefined
}) => (
  <Fieldset legend="Languages offered">
    <p class="hint">
      Readers get the one their browser asks for, else the page's language, which is always offered.
    </p>
    {locales.map((locale) => (
      <div key={locale} class="field checkbox">
        <input
          id={`${props.id}-${locale}`}
          type="checkbox"
          checked={locale === props.locale || props.languages.includes(locale)}
          disabled={locale === props.locale}
          onChange={(event) =>
            props.onChange(
              event.currentTarget.checked
                ? [...props.languages, locale]
                : props.languages.filter((language) => language !== locale)
            )}
        />
        <label for={`${props.id}-${locale}`} lang={locale}>{localeNames[locale]}</label>
      </div>
    ))}
    {props.error && <p class="field-error">{props.error}</p>}
  </Fieldset>
)

const PageForm = (
  props: ResourceFormProps<StatusPage> & {
    readonly components: ReadonlyArray<ComponentJson>
    readonly groups: ReadonlyArray<GroupJson>
  }
) => {
  const initial = props.initial
  const [slug, setSlug] = useState(initial?.slug ?? "")
  const [title, setTitle] = useState(initial?.title ?? "")
  const [description, setDescription] = useState(initial?.description ?? "")
  const [locale, setLocale] = useState<Locale>(initial?.locale ?? "en")
  const [languages, setLanguages] = useState<ReadonlyArray<Locale>>(initial?.languages ?? ["en"])
  const [timeZone, setTimeZone] = useState(initial?.timeZone ?? "")
  const [domain, setDomain] = useState(initial?.domain ?? "")
  const [brandColor, setBrandColor] = useState(initial?.brandColor ?? "")
  const [logoUrl, setLogoUrl] = useState(initial?.logoUrl ?? "")
  const [audience, setAudience] = useState<Audience>(initial?.audience ?? "public")
  const [password, setPassword] = useState("")
  const [items, setItems] = useState<ReadonlyArray<PageItem> | null>(initial?.items ?? null)
  const [links, setLinks] = useState<ReadonlyArray<LinkDraft>>(
    (initial?.footerLinks ?? []).map((link, index) => ({ key: index + 1, ...link }))
  )
  const { failure, busy, submit, fieldError } = useSubmit()
  const keepsPassword = initial?.audience === "protected"

  const save = async () => {
    const footerLinks: Array<FooterLink> = links.map((link) => ({ label: link.label.trim(), url: link.url.trim() }))
    const payload = {
      slug: slug.trim(),
      title: optional(title),
      description,
      logoUrl: optional(logoUrl),
      brandColor: optional(brandColor),
      locale,
      // The page's own language first, then the others in the catalogue's order.
      languages: [locale, ...locales.filter((other) => other !== locale && languages.includes(other))],
      timeZone: optional(timeZone),
      // Host names are case-insensitive; the API stores them in lower case.
      domain: optional(domain.toLowerCase()),
      audience,
      ...(audience === "protected" && password !== "" ? { password } : {}),
      items,
      footerLinks
    }
    const outcome = await submit((api) =>
      initial
        ? api.statusPages.update({ params: { id: initial.id }, payload }).pipe(withIfMatch(props.etag))
        : api.statusPages.create({ payload })
    )
    if (outcome.ok) props.onSaved(outcome.value)
  }

  return (
    <ResourceForm {...props} failure={failure} busy={busy} onSubmit={save}>
      <TextField
        id={`${props.id}-slug`}
        label="Slug"
        required
        value={slug}
        onInput={setSlug}
        hint="Lower-case letters, digits and hyphens: the page answers at /p/<slug>/."
        error={fieldError("slug")}
      />
      <TextField
        id={`${props.id}-name`}
        label="Title"
        value={title}
        onInput={setTitle}
        hint="Leave empty for the organization's name."
        error={fieldError("title")}
      />
      <TextArea
        id={`${props.id}-description`}
        label="Description"
        value={description}
        onInput={setDescription}
        error={fieldError("description")}
      />
      <SelectField
        id={`${props.id}-locale`}
        label="Language"
        hint="The page's own language: its words, dates and e-mails."
        value={locale}
        options={locales.map((value) => ({ value, label: localeNames[value] }))}
        onChange={setLocale}
        error={fieldError("locale")}
      />
      <LanguagesField
        id={`${props.id}-languages`}
        locale={locale}
        languages={languages}
        onChange={setLanguages}
        error={fieldError("languages")}
      />
      <TextField
        id={`${props.id}-timezone`}
        label="Time zone"
        list={`${props.id}-time-zones`}
        value={timeZone}
        onInput={setTimeZone}
        hint="An IANA name such as Europe/Paris; leave empty for the organization's."
        error={fieldError("timeZone")}
      />
      <datalist id={`${props.id}-time-zones`}>{timeZones.map((zone) => <option key={zone} value={zone} />)}</datalist>
      <TextField
        id={`${props.id}-domain`}
        label="Domain"
        inputMode="url"
        value={domain}
        onInput={setDomain}
        hint="A host name such as status.example.com whose DNS points here; leave empty for none."
        error={fieldError("domain")}
      />
      <TextField
        id={`${props.id}-color`}
        label="Brand colour"
        value={brandColor}
        onInput={setBrandColor}
        hint="Six hex digits, such as #2563eb; leave empty for the organization's."
        error={fieldError("brandColor")}
      />
      <TextField
        id={`${props.id}-logo`}
        label="Logo URL"
        type="url"
        inputMode="url"
        value={logoUrl}
        onInput={setLogoUrl}
        hint="An absolute http(s) address; leave empty for the organization's logo."
        error={fieldError("logoUrl")}
      />
      <SelectField
        id={`${props.id}-audience`}
        label="Audience"
        value={audience}
        options={audiences}
        onChange={setAudience}
        error={fieldError("audience")}
      />
      {audience === "protected" && (
        <TextField
          id={`${props.id}-password`}
          label="Password"
          type="password"
          autoComplete="new-password"
          required={!keepsPassword}
          value={password}
          onInput={setPassword}
          hint={keepsPassword
            ? "Leave empty to keep the current password; a new one signs every reader out."
            : "At least 8 characters; give it to the page's readers."}
          error={fieldError("password")}
        />
      )}
      <PageItemsEditor
        id={`${props.id}-items`}
        items={items}
        components={props.components}
        groups={props.groups}
        onChange={setItems}
        error={fieldError("items")}
      />
      <FooterLinksEditor
        id={`${props.id}-footer`}
        links={links}
        onChange={setLinks}
        error={fieldError("footerLinks")}
      />
    </ResourceForm>
  )
}

/** Copies the page's address, and says so where the button is. */
const CopyAddress = ({ address, name }: { readonly address: string; readonly name: string }) => {
  const [copied, setCopied] = useState("")
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(address)
      setCopied("Copied")
    } catch {
      setCopied("Copying is not allowed here: select the address and copy it by hand.")
    }
  }
  return (
    <>
      <button type="button" aria-label={`Copy address of ${name}`} onClick={copy}>Copy address</button>
      <span role="status">{copied}</span>
    </>
  )
}

// The row's controls are named with aria-label rather than a visually hidden span: such a span is
// positioned past the table's scrolling box on a phone and would widen the whole page.
const PageRow = (props: {
  readonly page: StatusPage
  readonly organizationName: string
  readonly components: ReadonlyArray<ComponentJson>
  readonly groups: ReadonlyArray<GroupJson>
  readonly onChanged: (message: string) => void
  /** Whether the role may change pages: the Actions column is left out otherwise. */
  readonly actions: boolean
}) => {
  const { page } = props
  const editor = useOpenPart(props.onChanged)
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()
  // A key limited to some pages changes only those.
  const mine = mayChangePage(useAccess(), page.id)
  const name = page.title ?? props.organizationName
  const address = pageAddress(page, window.location.origin)

  const makeDefault = () =>
    act(
      (api) => api.statusPages.update({ params: { id: page.id }, payload: { isDefault: true } }),
      () => `${name} (${page.slug}) is now the default page, at ${window.location.origin}/.`
    )
  const remove = () =>
    act(
      (api) => api.statusPages.remove({ params: { id: page.id } }),
      () => `The page ${name} (${page.slug}) was deleted.`
    )

  return (
    <tr>
      <th scope="row">
        {page.title ?? (
          <>
            {props.organizationName} <span class="muted">(the organization's name)</span>
          </>
        )}
        {page.isDefault && <span class="badge ok">Default</span>}
        <p class="muted small">
          {page.slug} · <span lang={page.locale}>{localeNames[page.locale]}</span>
          {page.items === null ? " · every public component" : ` · ${page.items.length} chosen`}
        </p>
        <FailureMessage failure={failure} />
        {editor.open && (
          <InlineSection id={`edit-page-${page.id}`} title={`Edit ${name} (${page.slug})`}>
            <FreshEditor
              read={(api) => api.statusPages.get({ params: { id: page.id }, responseMode: "decoded-and-response" })}
            >
              {(fresh, etag) => (
                <PageForm
                  id={`edit-page-${page.id}`}
                  initial={fresh}
                  etag={etag}
                  components={props.components}
                  groups={props.groups}
                  submitLabel="Save"
                  onCancel={editor.close}
                  onSaved={(saved) =>
                    editor.done(`The page ${saved.title ?? props.organizationName} (${saved.slug}) was saved.`)}
                />
              )}
            </FreshEditor>
          </InlineSection>
        )}
      </th>
      <td>
        <code>{address}</code>
        <div class="row-actions">
          <a href={address} target="_blank" rel="noopener noreferrer" aria-label={`Open ${name} in a new tab`}>
            Open
          </a>
          <CopyAddress address={address} name={name} />
        </div>
      </td>
      <td>{page.audience === "protected" ? "Protected (password)" : "Public"}</td>
      {props.actions && (
        <td>
          <div class="row-actions">
            {mine && can("statusPages.update") && (
              <button
                type="button"
                aria-expanded={editor.open}
                aria-label={`Edit ${name} (${page.slug})`}
                onClick={editor.toggle}
              >
                Edit
              </button>
            )}
            {mine && can("statusPages.update") && !page.isDefault && (
              <button type="button" aria-label={`Set as default ${name} (${page.slug})`} onClick={makeDefault}>
                Set as default
              </button>
            )}
            {mine && can("statusPages.remove") && (
              <ConfirmButton
                label="Delete"
                confirmLabel={`Delete ${name} (${page.slug})`}
                disabled={page.isDefault}
                onConfirm={remove}
              />
            )}
          </div>
          {mine && can("statusPages.remove") && page.isDefault && (
            <p class="muted small">The default page cannot be deleted: make another page the default first.</p>
          )}
        </td>
      )}
    </tr>
  )
}

const PagesView = () => {
  const { loaded, message, changed } = useListScreen((api) => everyItem(api.statusPages.list))
  const components = useComponentChoices()
  const [loadedGroups] = useLoad((api) => everyItem(api.componentGroups.list))
  const groups = loadedGroups.state === "ready" ? loadedGroups.value : []
  const [organization] = useLoad((api) => api.organization.get())
  const organizationName = organization.state === "ready" ? organization.value.name : "the organization"
  // A new form after each creation, empty again.
  const [created, setCreated] = useState(0)
  const can = useCan()
  const access = useAccess()
  const actions = can("statusPages.update") || can("statusPages.remove")

  return (
    <ResourcePage title="Pages" message={message}>
      <p class="muted">
        Each page has its own address, look, languages and components. The default page answers at the site's root;
        every page also answers at /p/&lt;slug&gt;/.
      </p>
      <ResourceTable
        loaded={loaded}
        caption="Status pages"
        columns={["Page", "Address", "Audience", ...(actions ? ["Actions"] : [])]}
        empty="No pages yet. Create one below."
      >
        {(page) => (
          <PageRow
            key={page.id}
            page={page}
            organizationName={organizationName}
            components={components}
            groups={groups}
            onChanged={changed}
            actions={actions}
          />
        )}
      </ResourceTable>
      {can("statusPages.create") && mayChangePage(access) && (
        <NewSection id="new-page" title="New page">
          <PageForm
            key={created}
            id="new-page"
            components={components}
            groups={groups}
            submitLabel="Create page"
            onSaved={(page) => {
              setCreated(created + 1)
              changed(`The page ${page.title ?? organizationName} (${page.slug}) was created.`)
            }}
          />
        </NewSection>
      )}
    </ResourcePage>
  )
}

export const PagesScreen: Screen = {
  path: "pages",
  group: "setup",
  needs: "statusPages.list",
  title: "Pages",
  View: PagesView
}
