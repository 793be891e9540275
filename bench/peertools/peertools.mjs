// Prints, as one JSON array, the tools/list entries openapi-mcp-generator's
// server would list for the spec named on the command line: its own parser
// and tool extraction (the code its CLI runs), and the description as its
// generated server decorates it. Usage: node peertools.mjs GENERATOR_DIR SPEC
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, spec] = process.argv.slice(2);
const load = (rel) => import(pathToFileURL(path.join(dir, 'dist', rel)).href);
const { parseSpecSecurely } = await load('utils/parser-security.js');
const { extractToolsFromApi } = await load('parser/extract-tools.js');

const api = await parseSpecSecurely(spec, false);
const tools = extractToolsFromApi(api, true, 64).map((t) => {
  // As utils/code-gen.js's generateToolDefinitionMap decorates it.
  let description = t.description;
  if (t.deprecated) description = `[DEPRECATED] ${description}`;
  const tags = Array.isArray(t.tags) ? t.tags.filter(Boolean) : [];
  if (tags.length > 0) description = `${description}\n(Tags: ${tags.join(', ')})`;
  // A schema JSON.stringify refuses (a cycle) is written as {} there.
  let inputSchema;
  try {
    inputSchema = JSON.parse(JSON.stringify(t.inputSchema));
  } catch {
    inputSchema = {};
  }
  return { name: t.name, description, inputSchema };
});
process.stdout.write(JSON.stringify(tools));
