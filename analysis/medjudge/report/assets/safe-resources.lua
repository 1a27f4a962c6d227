--[[
safe-resources.lua - only the report's own files are embedded (medjudge issue 14).

With --embed-resources pandoc reads every image path it meets and inlines it as a data URI, so
an image reference that came from user text (a dimension name such as "![x](/etc/passwd)")
would copy a local file into the report, and a URL would be fetched from the network. Figures
written by the renderer live in "<stem>_files/"; every other image source (absolute paths,
"..", URLs, other folders) is replaced by its alt text.
]]

local function own_file(src)
  if src:find("%.%.") or src:sub(1, 1) == "/" or src:find(":") then
    return false
  end
  return src:match("^[%w%-%._]+_files/[%w%-%._]+$") ~= nil
end

function Image(el)
  if own_file(el.src) then
    return nil
  end
  io.stderr:write("[safe-resources.lua] not embedded: " .. el.src .. "\n")
  local alt = el.caption or {}
  return pandoc.Span(alt, pandoc.Attr("", { "not-embedded" }))
end
