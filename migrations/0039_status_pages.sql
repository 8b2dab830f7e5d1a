-- Several status pages (docs/public-page.md, "Pages"). A page is a view over the public catalogue:
-- the components and groups it shows in its order (`status_page_items`), or every public
-- component when `all_components` is set. An incident or window appears on the pages that show
-- one of its components; one that names none appears on the default page.
--
-- `title`, `logo_url`, `brand_color` and `timezone` left null take the organization's, so the
-- default page that this migration creates shows what the one page showed before, and keeps
-- following the organization's profile. The default page is always public: the unprefixed
-- addresses (`/`, `/api/v1/status`, the feeds) answer for it.
create table status_pages (
  id text primary key default gen_random_uuid()::text,
  slug text not null unique check (slug ~ '^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$'),
  title text,
  description text not null default '',
  logo_url text,
  brand_color text,
  locale text not null default 'en',
  -- The languages readers may choose (Accept-Language, ?lang=); always holds `locale`.
  languages text[] not null default '{en}',
  timezone text,
  -- A host name that serves the page at `/` (matched against the request's Host, lower case).
  domain text unique,
  audience text not null default 'public' check (audience in ('public', 'protected')),
  -- scrypt, as for administrators' passwords; set exactly when the page is protected.
  password_hash text,
  is_default boolean not null default false,
  all_components boolean not null default true,
  footer_links jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((audience = 'protected') = (password_hash is not null)),
  check (not is_default or audience = 'public')
);

create unique index status_pages_one_default on status_pages (is_default) where is_default;

create table status_page_items (
  page_id text not null references status_pages (id) on delete cascade,
  position integer not null,
  component_id text references components (id) on delete cascade,
  group_id text references component_groups (id) on delete cascade,
  primary key (page_id, position),
  check ((component_id is null) <> (group_id is null))
);

create index status_page_items_component on status_page_items (component_id) where component_id is not null;
create index status_page_items_group on status_page_items (group_id) where group_id is not null;

insert into status_pages (slug, is_default) values ('default', true);

-- A subscription belongs to a page, in the language it was made in: an address may subscribe to
-- several pages, and gets one mail per page. Existing subscribers are the default page's, in English.
alter table subscribers add column page_id text references status_pages (id) on delete cascade;
update subscribers set page_id = (select id from status_pages where is_default);
alter table subscribers alter column page_id set not null;
alter table subscribers add column locale text not null default 'en';
alter table subscribers drop constraint subscribers_email_key;
alter table subscribers add constraint subscribers_page_email_key unique (page_id, email);
create index subscribers_page on subscribers (page_id);
