// Drives a tailor server with the published code of the MCP clients people
// use, for e2e/clients_test.go. Each client connects over stdio, lists the
// tools, converts them for its model's API and sends model requests to the
// recording server of the test (its base URL points there); the recording
// server plays the model: it answers with calls of tools, which go through
// the client's own call path, then with a final text.
//
// Input: the JSON of $TAILOR_COMPAT:
//   {"server": {"command", "args", "env"}, "serverName", "modelURL",
//    "clients": ["openai-agents", ...], "call": "<MCP tool name>" or "",
//    "steps": model turns (default 3), "elicit": "accept" or "" (answer the
//    server's elicitations, where the client supports them)}
// Output: one JSON line per client on stdout:
//   {"client", "names": {"<MCP name>": "<name the model sees>"},
//    "calls": [{"name", "result"}], "questions", "final", "error",
//    "instructions": the server's instructions as the client hands them
//    to the program ("" when it does not)}
// The model requests themselves are what the recording server received.

const cfg = JSON.parse(process.env.TAILOR_COMPAT);
// out resolves once the line is handed to the OS: stdout is a pipe, whose
// writes Node finishes asynchronously, and process.exit drops what is left.
const out = (o) => new Promise((resolve) => process.stdout.write(JSON.stringify(o) + '\n', resolve));
// Tells the recording server which name the model sees for the tool to
// call, in the client's own spelling.
const callHeader = 'x-tailor-call';
const steps = cfg.steps || 3;

async function openaiAgents() {
  const agents = await import('@openai/agents');
  const { default: OpenAI } = await import('openai');
  const server = new agents.MCPServerStdio({
    name: cfg.serverName, command: cfg.server.command, args: cfg.server.args, env: cfg.server.env,
    clientSessionTimeoutSeconds: 120,
  });
  await server.connect();
  try {
    const listed = await server.listTools();
    const names = Object.fromEntries(listed.map((t) => [t.name, t.name]));
    const client = new OpenAI({
      apiKey: 'sk-compat', baseURL: cfg.modelURL + '/openai-agents/v1',
      defaultHeaders: cfg.call ? { [callHeader]: names[cfg.call] } : {},
    });
    const agent = new agents.Agent({
      name: 'compat', instructions: 'Use the tools.', mcpServers: [server],
      mcpConfig: { convertSchemasToStrict: true },
      model: new agents.OpenAIChatCompletionsModel(client, 'gpt-compat'),
    });
    const run = await agents.run(agent, 'Call the tool.', { maxTurns: steps });
    const calls = run.newItems.filter((i) => i.type === 'tool_call_output_item').map((i) => ({ name: i.rawItem?.name ?? '', result: outputText(i.output) }));
    // The SDK keeps the server's instructions to itself: an Agent's
    // instructions are the program's only.
    return { names, calls, final: String(run.finalOutput ?? ''), instructions: '' };
  } finally {
    await server.close();
  }
}

// The Vercel AI SDK with one of its providers: @ai-sdk/mcp's stdio
// transport, its tools() conversion, generateText's own tool loop. Every
// tool asks for strict mode (the SDK's per-tool strict option); the
// provider sends it where its API supports it. With cfg.elicit the client
// declares elicitation and answers every question so.
async function vercel(provider) {
  const { createMCPClient, ElicitationRequestSchema } = await import('@ai-sdk/mcp');
  const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
  const ai = await import('ai');
  const mcp = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({ command: cfg.server.command, args: cfg.server.args, env: cfg.server.env, stderr: 'inherit' }),
    capabilities: cfg.elicit ? { elicitation: {} } : {},
  });
  const questions = [];
  if (cfg.elicit) {
    mcp.onElicitationRequest(ElicitationRequestSchema, async (req) => {
      questions.push(req.params.message);
      return { action: cfg.elicit, content: {} };
    });
  }
  try {
    const tools = await mcp.tools();
    for (const t of Object.values(tools)) t.strict = true;
    const names = Object.fromEntries(Object.keys(tools).map((n) => [n, n]));
    const headers = cfg.call ? { [callHeader]: names[cfg.call] } : {};
    const base = cfg.modelURL + '/vercel-' + provider;
    let model;
    if (provider === 'openai') {
      const { createOpenAI } = await import('@ai-sdk/openai');
      model = createOpenAI({ apiKey: 'sk-compat', baseURL: base + '/v1', headers }).chat('gpt-compat');
    } else if (provider === 'anthropic') {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      // A model id the provider knows to take strict tools.
      model = createAnthropic({ apiKey: 'sk-compat', baseURL: base + '/v1', headers })('claude-sonnet-4-5');
    } else {
      const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
      model = createGoogleGenerativeAI({ apiKey: 'compat', baseURL: base + '/v1beta', headers })('gemini-compat');
    }
    const res = await ai.generateText({
      model, tools, prompt: 'Call the tool.', stopWhen: ai.stepCountIs(steps), maxRetries: 0,
    });
    const calls = [];
    for (const step of res.steps) {
      for (const c of step.content ?? []) {
        if (c.type === 'tool-result') calls.push({ name: c.toolName, result: outputText(c.output) });
        if (c.type === 'tool-error') calls.push({ name: c.toolName, result: 'tool-error: ' + String(c.error?.message ?? c.error) });
      }
    }
    // The client hands the program the server's instructions
    // (mcp.instructions); generateText sends its model only the system
    // text the program gives it, and this program, like the SDK's
    // examples, gives none.
    return { names, calls, questions, final: res.text, instructions: mcp.instructions ?? '' };
  } finally {
    await mcp.close();
  }
}

// Gemini CLI: its own connection, discovery (schema adjustments, tool
// naming), the declarations it sends (with the wait_for_previous argument
// it adds), and its tool invocation with the arguments as the model gave
// them. The request goes out with @google/genai, as Gemini CLI sends it.
async function geminiCLI() {
  const core = await import('@google/gemini-cli-core');
  const { GoogleGenAI } = await import('@google/genai');
  const serverCfg = { command: cfg.server.command, args: cfg.server.args, env: cfg.server.env, timeout: 120000, trust: true };
  const diagnostics = [];
  const cliConfig = {
    emitMcpDiagnostic: (level, msg) => diagnostics.push(`${level}: ${msg}`),
    isTrustedFolder: () => true,
    sanitizationConfig: { allowedEnvironmentVariables: Object.keys(cfg.server.env), blockedEnvironmentVariables: [], enableEnvironmentVariableRedaction: false },
    getPolicyEngine: () => undefined,
  };
  const workspace = { getDirectories: () => [], onDirectoriesChanged: () => () => {} };
  const client = await core.connectToMcpServer('0.61.0', cfg.serverName, serverCfg, false, workspace, cliConfig);
  try {
    const messageBus = { subscribe() {}, unsubscribe() {}, publish() {}, request: async () => ({ confirmed: true }) };
    const tools = await core.discoverTools(cfg.serverName, serverCfg, client, cliConfig, messageBus);
    if (diagnostics.some((d) => d.startsWith('error'))) throw new Error(diagnostics.join('\n'));
    const names = {};
    for (const t of tools) names[t.serverToolName] = t.name;
    const genai = new GoogleGenAI({ apiKey: 'compat', httpOptions: { baseUrl: cfg.modelURL + '/gemini-cli', headers: cfg.call ? { [callHeader]: names[cfg.call] } : {} } });
    const declarations = tools.map((t) => t.schema);
    // Gemini CLI puts every connected server's instructions, in its
    // manager's wording, into the memory its system prompt carries
    // (context/memoryContextManager.js); it starts MCP servers in trusted
    // folders only, where that memory is kept. The manager here holds the
    // one client connected above.
    const { McpClientManager } = await import('@google/gemini-cli-core/dist/src/tools/mcp-client-manager.js');
    const manager = new McpClientManager('0.61.0', cliConfig, undefined);
    manager.clients.set(cfg.serverName, { getServerName: () => cfg.serverName, getInstructions: () => client.getInstructions() });
    const systemInstruction = manager.getMcpInstructions() || undefined;
    const genConfig = { systemInstruction, tools: [{ functionDeclarations: declarations }] };
    const contents = [{ role: 'user', parts: [{ text: 'Call the tool.' }] }];
    const first = await genai.models.generateContent({ model: 'gemini-compat', contents, config: genConfig });
    const fc = first.functionCalls?.[0];
    const instructions = client.getInstructions() ?? '';
    if (!fc) return { names, calls: [], final: first.text ?? '', instructions };
    const tool = tools.find((t) => t.name === fc.name);
    if (!tool) throw new Error(`the model called ${fc.name}, which Gemini CLI does not know`);
    const invocation = tool.build(fc.args ?? {});
    const res = await invocation.execute({ abortSignal: new AbortController().signal });
    const result = res.error ? 'tool-error: ' + res.error.message : outputText(res.llmContent);
    contents.push({ role: 'model', parts: [{ functionCall: fc }] }, { role: 'user', parts: [{ functionResponse: { name: fc.name, response: { output: result } } }] });
    const second = await genai.models.generateContent({ model: 'gemini-compat', contents, config: genConfig });
    return { names, calls: [{ name: tool.serverToolName, result }], final: second.text ?? '', instructions };
  } finally {
    await client.close();
  }
}

// outputText flattens what a client hands its model as a tool's result.
function outputText(o) {
  if (o == null) return '';
  if (typeof o === 'string') return o;
  if (Array.isArray(o)) return o.map(outputText).join('\n');
  if (o.type === 'text' && typeof o.text === 'string') return o.text;
  if (typeof o.value !== 'undefined') return outputText(o.value);
  if (Array.isArray(o.content)) return (o.isError ? 'isError: ' : '') + outputText(o.content);
  if (typeof o.text === 'string') return o.text;
  return JSON.stringify(o);
}

const runners = {
  'openai-agents': openaiAgents,
  'vercel-openai': () => vercel('openai'),
  'vercel-anthropic': () => vercel('anthropic'),
  'vercel-google': () => vercel('google'),
  'gemini-cli': geminiCLI,
};

for (const name of cfg.clients) {
  const started = Date.now();
  try {
    await out({ client: name, ...(await runners[name]()), ms: Date.now() - started });
  } catch (e) {
    await out({ client: name, error: String(e?.stack ?? e), ms: Date.now() - started });
  }
}
process.exit(0);
