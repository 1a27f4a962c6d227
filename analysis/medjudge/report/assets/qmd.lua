--[[
qmd.lua - the Quarto features medjudge's built-in renderer needs, for pandoc >= 3.1.

* raw HTML tables (pandas) -> pandoc Tables (the typst writer drops raw HTML; doing it for HTML
  too gives one look, numeric columns right-aligned, and re-escaped cell text);
* `::: {#tbl-x}` output divs -> the table gets the id and the caption (the `.qmd-caption` div);
* numbered captions: "Figure n: " / "Table n: " prefixes for HTML (typst numbers itself;
  uncaptioned tables are not numbered);
* `::: {#fig-x}` divs (image + caption as the last paragraph, as Quarto) -> numbered figures;
* cross references `@fig-x` / `@tbl-x` -> "Figure n" links (HTML) or typst `#ref(<x>)`;
  `@sec-x` -> a link with the section's title;
* the `{{< pagebreak >}}` shortcode (typst `#pagebreak`, HTML page-break div);
* callouts `::: {.callout-note}` (note, tip, warning, important, caution), optional title
  (attribute `title=` or a leading heading);
* `.content-visible` / `.content-hidden` with `when-format=` / `unless-format=`.
]]

local is_html = FORMAT:match("html") ~= nil
local is_typst = FORMAT:match("typst") ~= nil
local NBSP = "\u{00A0}"

local CALLOUT = {
  note = { title = "Note", color = "#0072B2", fill = "#E8F1F8" },
  tip = { title = "Tip", color = "#009E73", fill = "#E6F5F0" },
  warning = { title = "Warning", color = "#E69F00", fill = "#FDF5E6" },
  important = { title = "Important", color = "#D55E00", fill = "#FBEEE6" },
  caution = { title = "Caution", color = "#CC79A7", fill = "#F9EEF4" },
}

local function warn(msg)
  io.stderr:write("[qmd.lua] WARNING: " .. msg .. "\n")
end

-- ---------------------------------------------------------------- raw HTML tables
local function looks_numeric(s)
  if s == "" or s == "nan" or s == "NaN" or s == "—" or s == "-" or s == "NA" then
    return nil -- neutral
  end
  s = s:gsub("−", "-"):gsub(",", ""):gsub("%%$", ""):gsub("^[<>≤≥]%s*", "")
  return s:match("^[%+%-]?%d*%.?%d+[eE]?[%+%-]?%d*$") ~= nil
end

local function align_numeric(tbl)
  local ncol = #tbl.colspecs
  for c = 1, ncol do
    local numeric, seen = true, false
    for _, body in ipairs(tbl.bodies) do
      for _, row in ipairs(body.body) do
        local cell = row.cells[c]
        if cell and cell.col_span == 1 then
          local v = looks_numeric(pandoc.utils.stringify(cell.contents))
          if v == false then
            numeric = false
          elseif v then
            seen = true
          end
        end
      end
    end
    if numeric and seen then
      tbl.colspecs[c] = { pandoc.AlignRight, tbl.colspecs[c][2] }
    elseif tbl.colspecs[c][1] == pandoc.AlignDefault then
      tbl.colspecs[c] = { pandoc.AlignLeft, tbl.colspecs[c][2] } -- typst would centre text
    end
  end
  return tbl
end

local function html_table_blocks(html)
  html = html:gsub("<style.-</style>", "")
  local doc = pandoc.read(html, "html")
  local out = pandoc.List()
  local function add(blocks)
    for _, b in ipairs(blocks) do
      if b.t == "Table" then
        out:insert(align_numeric(b))
      elseif b.t == "Div" then
        add(b.content) -- pandas wraps its table in <div>
      else
        out:insert(b)
      end
    end
  end
  add(doc.blocks)
  return out
end

local function RawBlockTables(el)
  if el.format == "html" and el.text:match("<table") then
    return html_table_blocks(el.text)
  end
  if el.format == "html" and not is_html then
    return {} -- other raw HTML (widgets, scripts) cannot appear in typst
  end
  return nil
end

-- ---------------------------------------------------------------- table output divs
local function caption_blocks(div)
  local cap, rest = nil, pandoc.List()
  for _, b in ipairs(div.content) do
    if b.t == "Div" and b.classes:includes("qmd-caption") then
      cap = b.content
    else
      rest:insert(b)
    end
  end
  return cap, rest
end

-- Quarto crossref divs: the caption is the div's last paragraph (when there is no
-- `.qmd-caption` div, which the built-in writer uses for labelled table chunks).
local function last_para_caption(div, cap, rest)
  if cap or #rest < 2 then
    return cap, rest
  end
  local last = rest[#rest]
  if last.t == "Para" or last.t == "Plain" then
    local body = pandoc.List({ table.unpack(rest, 1, #rest - 1) })
    return { pandoc.Plain(last.content) }, body
  end
  return cap, rest
end

local function FigureDiv(div)
  local id = div.identifier
  local cap, rest = last_para_caption(div, caption_blocks(div))
  local img = nil
  for _, b in ipairs(rest) do
    if (b.t == "Para" or b.t == "Plain") and #b.content >= 1 and b.content[1].t == "Image" then
      img = b.content[1]
    elseif b.t == "Figure" then
      return pandoc.Figure(b.content, pandoc.Caption(cap or {}), pandoc.Attr(id))
    end
  end
  if not img then
    warn("'" .. id .. "': the figure div holds no image; its label cannot be referenced")
    return rest
  end
  img.caption = {}
  return pandoc.Figure({ pandoc.Plain({ img }) }, pandoc.Caption(cap or {}), pandoc.Attr(id))
end

local function TableDiv(div)
  local id = div.identifier
  if id:match("^fig%-") then
    return FigureDiv(div)
  end
  if not id:match("^tbl%-") then
    return nil
  end
  local cap, rest = last_para_caption(div, caption_blocks(div))
  for i, b in ipairs(rest) do
    if b.t == "Table" then
      b.identifier = id
      if cap then
        b.caption = pandoc.Caption(cap)
      end
      return rest
    end
  end
  warn("'" .. id .. "': the chunk produced no table; its label cannot be referenced")
  return rest
end

-- ---------------------------------------------------------------- numbering
local numbers = {} -- id -> {kind=, n=}

local function collect(doc)
  local nfig, ntbl = 0, 0
  doc:walk({
    traverse = "topdown",
    Header = function(h)
      if h.identifier:match("^sec%-") then
        numbers[h.identifier] = { kind = "Section", title = pandoc.utils.stringify(h.content) }
      end
    end,
    Figure = function(f)
      if f.identifier:match("^fig%-") then
        nfig = nfig + 1
        numbers[f.identifier] = { kind = "Figure", n = nfig }
      end
    end,
    Table = function(t)
      if t.identifier:match("^tbl%-") and #t.caption.long > 0 then
        ntbl = ntbl + 1
        numbers[t.identifier] = { kind = "Table", n = ntbl }
      end
    end,
  })
end

local function prefix_caption(caption, label)
  local long = caption.long
  if #long > 0 and (long[1].t == "Plain" or long[1].t == "Para") then
    long[1].content:insert(1, pandoc.Str(label .. ": "))
  else
    long:insert(1, pandoc.Plain({ pandoc.Str(label .. ": ") }))
  end
  caption.long = long
  return caption
end

local function number_label(id)
  local info = numbers[id]
  return info.kind .. NBSP .. tostring(info.n)
end

local function Figure(f)
  if is_html and numbers[f.identifier] then
    f.caption = prefix_caption(f.caption, number_label(f.identifier))
    return f
  end
end

local function Table(t)
  if is_html and numbers[t.identifier] then
    t.caption = prefix_caption(t.caption, number_label(t.identifier))
  end
  if is_html then
    -- a wide table scrolls inside its own box instead of widening the page (phones)
    return pandoc.Div({ t }, { class = "table-wrap" })
  end
end

local function Cite(c)
  local out = pandoc.List()
  for i, cit in ipairs(c.citations) do
    local id = cit.id
    if not (id:match("^fig%-") or id:match("^tbl%-") or id:match("^sec%-")) then
      return nil -- a real citation; leave it to citeproc
    end
    if i > 1 then
      out:insert(pandoc.Str(", "))
    end
    if numbers[id] and numbers[id].kind == "Section" then
      -- sections are not numbered: link with the section's title
      local title = pandoc.Str("“" .. numbers[id].title .. "”")
      if is_typst then
        out:insert(pandoc.RawInline("typst", "#link(<" .. id .. ">)["))
        out:insert(title)
        out:insert(pandoc.RawInline("typst", "]"))
      else
        out:insert(pandoc.Link({ title }, "#" .. id))
      end
    elseif not numbers[id] then
      warn("unresolved cross-reference @" .. id)
      out:insert(pandoc.Strong({ pandoc.Str("?@" .. id) }))
    elseif is_typst then
      out:insert(pandoc.RawInline("typst", "#ref(<" .. id .. ">)"))
    else
      out:insert(pandoc.Link({ pandoc.Str(number_label(id)) }, "#" .. id))
    end
  end
  return out
end

-- ---------------------------------------------------------------- callouts & visibility
local function callout_kind(div)
  for _, cls in ipairs(div.classes) do
    local kind = cls:match("^callout%-(%a+)$")
    if kind and CALLOUT[kind] then
      return kind
    end
  end
end

local function format_matches(spec)
  for f in spec:gmatch("[^%s,]+") do
    if FORMAT:match(f) or (f == "pdf" and is_typst) then
      return true
    end
  end
  return false
end

local function Div(div)
  if div.classes:includes("content-visible") or div.classes:includes("content-hidden") then
    local when, unless = div.attributes["when-format"], div.attributes["unless-format"]
    local show = true
    if when then
      show = format_matches(when)
    elseif unless then
      show = not format_matches(unless)
    end
    if div.classes:includes("content-hidden") then
      show = not show
    end
    return show and div.content or {}
  end

  local kind = callout_kind(div)
  if not kind then
    return nil
  end
  local style = CALLOUT[kind]
  local content = div.content
  local title = nil
  if div.attributes["title"] then
    title = pandoc.Inlines(div.attributes["title"])
  elseif #content > 0 and content[1].t == "Header" then
    title = content[1].content
    content = pandoc.Blocks({ table.unpack(content, 2) })
  else
    title = pandoc.Inlines(style.title)
  end
  if is_typst then
    local open = string.format(
      '#block(width: 100%%, inset: (x: 10pt, y: 7pt), radius: 2pt, breakable: true, '
        .. 'fill: rgb("%s"), stroke: (left: 3pt + rgb("%s")))[',
      style.fill,
      style.color
    )
    local blocks = pandoc.List({ pandoc.RawBlock("typst", open) })
    blocks:insert(pandoc.Para({ pandoc.Strong(title) }))
    blocks:extend(content)
    blocks:insert(pandoc.RawBlock("typst", "]"))
    return blocks
  end
  local head = pandoc.Div({ pandoc.Plain({ pandoc.Strong(title) }) }, { class = "callout-title" })
  local body = pandoc.Div(content, { class = "callout-body" })
  return pandoc.Div({ head, body }, { class = "callout callout-" .. kind })
end

-- ---------------------------------------------------------------- shortcodes
-- `{{< pagebreak >}}` (Quarto's shortcode) on a line of its own.
local function PagebreakPara(p)
  local text = pandoc.utils.stringify(p)
  if text:match("^%s*{{<%s*pagebreak%s*>}}%s*$") then
    if is_typst then
      return pandoc.RawBlock("typst", "#pagebreak(weak: true)")
    elseif is_html then
      return pandoc.RawBlock("html", '<div class="pagebreak" style="page-break-after: always;"></div>')
    end
    return {}
  end
end

-- ---------------------------------------------------------------- driver
function Pandoc(doc)
  doc = doc:walk({ Para = PagebreakPara, Plain = PagebreakPara })
  doc = doc:walk({ RawBlock = RawBlockTables })
  doc = doc:walk({ Div = TableDiv })
  collect(doc)
  doc = doc:walk({ Figure = Figure, Table = Table, Cite = Cite })
  doc = doc:walk({ Div = Div })
  return doc
end
