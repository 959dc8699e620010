-- Run by nvim_e2e.sh inside headless Neovim, with a migration of the example lake as the current
-- buffer: Neovim's own LSP client starts `fieldgate lsp`, this waits for its diagnostics,
-- applies the suppression quick fix, writes the reason, checks what the server says then, and
-- asks for the columns to complete in a statement being written.
-- Any failure exits non-zero with the reason on stderr.
local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local function codes(bufnr)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    found[#found + 1] = tostring(d.code)
  end
  table.sort(found)
  return table.concat(found, ",")
end

local bufnr = vim.api.nvim_get_current_buf()
local exit_code
local client_id = vim.lsp.start_client({
  name = "fieldgate",
  cmd = { os.getenv("FIELDGATE"), "lsp" },
  root_dir = vim.fn.getcwd(),
  on_exit = function(code)
    exit_code = code
  end,
})
if not client_id then
  fail("the client did not start")
end
vim.lsp.buf_attach_client(bufnr, client_id)

local function wait_for(what, predicate)
  if not vim.wait(60000, predicate, 50) then
    fail("timed out waiting for " .. what .. "; diagnostics: " .. codes(bufnr))
  end
end

wait_for("the narrowing finding", function()
  return codes(bufnr):find("type-narrowing", 1, true) ~= nil
end)
local narrowing
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  if d.code == "type-narrowing" then
    narrowing = d
  end
end
if narrowing.severity ~= vim.diagnostic.severity.ERROR then
  fail("type-narrowing is not an error")
end
local statement = vim.api.nvim_buf_get_lines(bufnr, narrowing.lnum, narrowing.lnum + 1, false)[1]
if not statement:find("ALTER COLUMN customer_id", 1, true) then
  fail("the finding is not on the statement: " .. statement)
end

-- The code actions for the diagnostic, as vim.lsp.buf.code_action asks for them.
local params = vim.lsp.util.make_range_params()
params.range = { start = { line = narrowing.lnum, character = 0 }, ["end"] = { line = narrowing.lnum, character = 0 } }
params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(bufnr, narrowing.lnum) }
local replies = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 30000)
local fix
for _, reply in pairs(replies or {}) do
  for _, action in ipairs(reply.result or {}) do
    if action.title:find("Suppress `type-narrowing`", 1, true) then
      fix = action
    end
  end
end
if not fix then
  fail("no suppression quick fix offered")
end
vim.lsp.util.apply_workspace_edit(fix.edit, "utf-16")
local comment = vim.api.nvim_buf_get_lines(bufnr, narrowing.lnum, narrowing.lnum + 1, false)[1]
if comment ~= "-- fieldgate: allow type-narrowing -- " then
  fail("the quick fix inserted: " .. comment)
end

-- Until the reason is written, the suppression itself is reported and the finding stands.
wait_for("the missing reason", function()
  local now = codes(bufnr)
  return now:find("suppression", 1, true) ~= nil and now:find("type-narrowing", 1, true) ~= nil
end)
vim.api.nvim_buf_set_lines(bufnr, narrowing.lnum, narrowing.lnum + 1, false,
  { comment .. "every customer_id fits in INT (checked in the warehouse)" })
wait_for("a clean buffer", function()
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.severity == vim.diagnostic.severity.ERROR or d.severity == vim.diagnostic.severity.WARN then
      return false
    end
  end
  return codes(bufnr):find("suppression", 1, true) == nil
end)
-- Completion in a statement being written: the table's columns after DROP COLUMN.
local last = vim.api.nvim_buf_line_count(bufnr)
local typing = "ALTER TABLE lake_prod.fact_orders DROP COLUMN "
vim.api.nvim_buf_set_lines(bufnr, last, last, false, { typing })
local position = { line = last, character = #typing }
local asked = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = position }
local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/completion", asked, 30000)
local labels = {}
for _, answer in pairs(answers or {}) do
  local result = answer.result or {}
  for _, item in ipairs(result.items or result) do
    labels[#labels + 1] = item.label
  end
end
table.sort(labels)
if not vim.tbl_contains(labels, "customer_id") or not vim.tbl_contains(labels, "order_id") then
  fail("completion after DROP COLUMN offered: " .. table.concat(labels, ","))
end

-- Neovim sends `shutdown`, then `exit`: the server must have processed both and exited 0.
vim.lsp.stop_client(client_id)
if not vim.wait(30000, function() return exit_code ~= nil end, 50) then
  fail("the server did not exit after shutdown")
end
if exit_code ~= 0 then
  fail("the server exited with " .. tostring(exit_code) .. " after shutdown and exit")
end
print("ok: fieldgate's diagnostics arrived in Neovim, the quick fix applied, columns completed")
vim.cmd("qall!")
