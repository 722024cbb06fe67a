/**
 * fast-check arbitraries for neutral session updates that are valid in the model (and whose v2
 * encoding is valid against the official schema). Shared by the codec tests.
 */
import fc from 'fast-check';
import type {
  AnyContentBlock,
  AnyToolCallContent,
  ConfigOption,
  PlanEntry,
  SessionUpdate,
  ToolCallLocation,
} from '../../packages/protocol/src/index.js';

const opt = <T>(a: fc.Arbitrary<T>) => a; // readability in records with requiredKeys

export const id = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,11}$/);
export const absPath = fc.stringMatching(/^(\/[a-z0-9_. -]{1,8}){1,3}$/);
export const base64 = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b).toString('base64'));
export const meta = fc.dictionary(
  fc.stringMatching(/^[a-z]{1,6}$/),
  fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()),
  { maxKeys: 3 },
);
const iso = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const json = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.boolean(),
  fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

const annotations = fc.record(
  {
    audience: fc.array(fc.constantFrom('user', 'assistant'), { maxLength: 2 }),
    priority: fc.double({ min: 0, max: 1, noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
  },
  { requiredKeys: [] },
);

export const contentBlock: fc.Arbitrary<AnyContentBlock> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        type: fc.constant('text' as const),
        text: fc.string({ maxLength: 30 }),
        annotations: opt(annotations),
        _meta: opt(meta),
      },
      { requiredKeys: ['type', 'text'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        type: fc.constant('image' as const),
        data: base64,
        mimeType: fc.constant('image/png'),
        uri: fc.constant('https://example.com/i.png'),
      },
      { requiredKeys: ['type', 'data', 'mimeType'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('audio' as const), data: base64, mimeType: fc.constant('audio/wav') }),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        type: fc.constant('resource_link' as const),
        uri: fc.constant('file:///tmp/x.txt'),
        name: fc.string({ maxLength: 8 }),
        title: fc.option(fc.string({ maxLength: 8 })),
        size: fc.nat(),
        mimeType: fc.constant('text/plain'),
      },
      { requiredKeys: ['type', 'uri', 'name'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('resource' as const),
      resource: fc.oneof(
        fc.record({ uri: fc.constant('file:///tmp/a.txt'), text: fc.string({ maxLength: 20 }) }),
        fc.record({
          uri: fc.constant('file:///tmp/a.bin'),
          blob: base64,
          mimeType: fc.constant('application/octet-stream'),
        }),
      ),
    }),
  },
) as fc.Arbitrary<AnyContentBlock>;

export const textDiff = fc.record(
  {
    type: fc.constant('diff' as const),
    path: absPath,
    oldText: fc.option(fc.string({ maxLength: 60 })),
    newText: fc.string({ maxLength: 60 }),
    _meta: opt(meta),
  },
  { requiredKeys: ['type', 'path', 'oldText', 'newText'] },
);

const fileChange = fc.oneof(
  fc.record({ operation: fc.constantFrom('add', 'delete', 'modify'), path: absPath }),
  fc.record({ operation: fc.constantFrom('move', 'copy'), oldPath: absPath, path: absPath }),
  fc.record({
    operation: fc.constantFrom('add', 'modify'),
    path: absPath,
    fileType: fc.constantFrom('text', 'binary'),
    mimeType: fc.constant('text/plain'),
  }),
);
export const fileChanges = fc.record(
  {
    type: fc.constant('file_changes' as const),
    changes: fc.array(fileChange, { minLength: 1, maxLength: 3 }),
    patch: fc.option(fc.record({ format: fc.constant('git_patch'), text: fc.string({ maxLength: 40 }) })),
  },
  { requiredKeys: ['type', 'changes'] },
);

export const toolContent: fc.Arbitrary<AnyToolCallContent> = fc.oneof(
  fc.record({ type: fc.constant('content' as const), content: contentBlock }),
  textDiff,
  fileChanges,
  fc.record({ type: fc.constant('terminal' as const), terminalId: id }),
) as fc.Arbitrary<AnyToolCallContent>;

const location: fc.Arbitrary<ToolCallLocation> = fc.record(
  { path: absPath, line: fc.integer({ min: 1, max: 9999 }) },
  { requiredKeys: ['path'] },
);

export const toolKind = fc.constantFrom(
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
  '_custom',
);
export const toolStatus = fc.constantFrom(
  'pending',
  'in_progress',
  'paused',
  'completed',
  'failed',
  'cancelled',
  '_custom',
);

export const toolCallUpdate = fc.record(
  {
    sessionUpdate: fc.constant('tool_call_update' as const),
    toolCallId: id,
    title: fc.option(fc.string({ maxLength: 12 })),
    name: fc.option(fc.string({ maxLength: 8 })),
    kind: fc.option(toolKind),
    status: fc.option(toolStatus),
    content: fc.option(fc.array(toolContent, { maxLength: 3 })),
    locations: fc.option(fc.array(location, { maxLength: 2 })),
    rawInput: json,
    rawOutput: json,
    capabilities: fc.option(fc.constant({ cancel: {} })),
    _meta: fc.option(meta),
  },
  { requiredKeys: ['sessionUpdate', 'toolCallId'] },
);

const planEntry: fc.Arbitrary<PlanEntry> = fc.record({
  content: fc.string({ maxLength: 12 }),
  priority: fc.constantFrom('high', 'medium', 'low', '_urgent'),
  status: fc.constantFrom('pending', 'in_progress', 'completed', 'cancelled', '_blocked'),
});

const selectOption = fc.record({ value: id, name: fc.string({ maxLength: 6 }) });
export const configOption: fc.Arbitrary<ConfigOption> = fc.oneof(
  fc.record(
    {
      type: fc.constant('select' as const),
      configId: id,
      name: fc.string({ maxLength: 8 }),
      category: fc.constantFrom('mode', 'model', '_x'),
      currentValue: id,
      options: fc.oneof(
        fc.array(selectOption, { minLength: 1, maxLength: 3 }),
        fc.array(
          fc.record({
            groupId: id,
            name: fc.string({ maxLength: 5 }),
            options: fc.array(selectOption, { minLength: 1, maxLength: 2 }),
          }),
          { minLength: 1, maxLength: 2 },
        ),
      ),
    },
    { requiredKeys: ['type', 'configId', 'name', 'currentValue', 'options'] },
  ),
  fc.record({
    type: fc.constant('boolean' as const),
    configId: id,
    name: fc.string({ maxLength: 8 }),
    currentValue: fc.boolean(),
  }),
) as fc.Arbitrary<ConfigOption>;

const messageKind = fc.constantFrom('user_message' as const, 'agent_message' as const, 'agent_thought' as const);
const chunkKind = fc.constantFrom(
  'user_message_chunk' as const,
  'agent_message_chunk' as const,
  'agent_thought_chunk' as const,
);

/** One arbitrary per neutral update kind (all 21). */
export const updates = {
  message: fc.record(
    {
      sessionUpdate: messageKind,
      messageId: id,
      content: fc.option(fc.array(contentBlock, { maxLength: 3 })),
      _meta: fc.option(meta),
    },
    { requiredKeys: ['sessionUpdate', 'messageId'] },
  ),
  chunk: fc.record(
    { sessionUpdate: chunkKind, messageId: id, content: contentBlock, _meta: meta },
    { requiredKeys: ['sessionUpdate', 'messageId', 'content'] },
  ),
  state: fc.oneof(
    fc.record(
      {
        sessionUpdate: fc.constant('state_update' as const),
        state: fc.constantFrom('running', 'requires_action'),
        background: fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('terminal'), terminalId: id }),
            fc.record({ type: fc.constant('tool_call'), toolCallId: id }),
          ),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: ['sessionUpdate', 'state'] },
    ),
    fc.record(
      {
        sessionUpdate: fc.constant('state_update' as const),
        state: fc.constant('idle'),
        stopReason: fc.constantFrom(
          'end_turn',
          'max_tokens',
          'max_turn_requests',
          'refusal',
          'cancelled',
          '_custom',
          null,
        ),
      },
      { requiredKeys: ['sessionUpdate', 'state'] },
    ),
    fc.record({
      sessionUpdate: fc.constant('state_update' as const),
      state: fc.constant('idle'),
      stopReason: fc.constant('error'),
      error: fc.record({ code: fc.integer({ min: -32768, max: 0 }), message: fc.string({ maxLength: 10 }) }),
    }),
  ),
  toolCallUpdate,
  toolCallContentChunk: fc.record(
    {
      sessionUpdate: fc.constant('tool_call_content_chunk' as const),
      toolCallId: id,
      content: toolContent,
      _meta: meta,
    },
    { requiredKeys: ['sessionUpdate', 'toolCallId', 'content'] },
  ),
  terminalUpdate: fc.record(
    {
      sessionUpdate: fc.constant('terminal_update' as const),
      terminalId: id,
      command: fc.option(fc.string({ maxLength: 10 })),
      cwd: fc.option(absPath),
      output: fc.option(fc.record({ data: base64 })),
      exitStatus: fc.option(
        fc.record(
          {
            exitCode: fc.option(fc.integer({ min: -255, max: 255 })),
            signal: fc.option(fc.constantFrom('SIGINT', 'SIGKILL')),
          },
          { requiredKeys: [] },
        ),
      ),
      size: fc.option(fc.record({ cols: fc.integer({ min: 1, max: 500 }), rows: fc.integer({ min: 1, max: 200 }) })),
      capabilities: fc.option(fc.constant({ cancel: {} })),
      _meta: fc.option(meta),
    },
    { requiredKeys: ['sessionUpdate', 'terminalId'] },
  ),
  terminalOutputChunk: fc.record({
    sessionUpdate: fc.constant('terminal_output_chunk' as const),
    terminalId: id,
    data: base64,
  }),
  planUpdate: fc.record({
    sessionUpdate: fc.constant('plan_update' as const),
    plan: fc.record({
      type: fc.constant('items' as const),
      planId: id,
      entries: fc.array(planEntry, { maxLength: 4 }),
    }),
  }),
  planRemoved: fc.record({ sessionUpdate: fc.constant('plan_removed' as const), planId: id }),
  availableCommands: fc.record({
    sessionUpdate: fc.constant('available_commands_update' as const),
    availableCommands: fc.array(
      fc.record(
        {
          name: id,
          description: fc.string({ maxLength: 10 }),
          input: fc.option(fc.record({ hint: fc.string({ maxLength: 6 }) })),
        },
        { requiredKeys: ['name', 'description'] },
      ),
      { maxLength: 3 },
    ),
  }),
  configOptions: fc.record({
    sessionUpdate: fc.constant('config_option_update' as const),
    configOptions: fc.array(configOption, { maxLength: 3 }),
  }),
  currentMode: fc.record({ sessionUpdate: fc.constant('current_mode_update' as const), currentModeId: id }),
  sessionInfo: fc.record(
    {
      sessionUpdate: fc.constant('session_info_update' as const),
      title: fc.option(fc.string({ maxLength: 10 })),
      updatedAt: fc.option(iso),
      _meta: fc.option(meta),
    },
    { requiredKeys: ['sessionUpdate'] },
  ),
  usage: fc.record(
    {
      sessionUpdate: fc.constant('usage_update' as const),
      used: fc.nat(),
      size: fc.nat(),
      cost: fc.option(
        fc.record({ amount: fc.integer({ min: 0, max: 1000 }), currency: fc.constantFrom('USD', 'credits') }),
      ),
    },
    { requiredKeys: ['sessionUpdate', 'used', 'size'] },
  ),
  notice: fc.record(
    {
      sessionUpdate: fc.constant('notice' as const),
      severity: fc.constantFrom('info', 'warning', 'error', '_debug'),
      title: fc.string({ minLength: 1, maxLength: 10 }),
      description: fc.option(fc.string({ maxLength: 10 })),
    },
    { requiredKeys: ['sessionUpdate', 'severity', 'title'] },
  ),
  compaction: fc.record(
    {
      sessionUpdate: fc.constant('compaction_update' as const),
      compactionId: id,
      status: fc.constantFrom('in_progress', 'completed', 'failed', 'cancelled'),
      summary: fc.option(fc.array(contentBlock, { maxLength: 2 })),
      error: fc.option(fc.string({ maxLength: 10 })),
    },
    { requiredKeys: ['sessionUpdate', 'compactionId', 'status'] },
  ),
  compactionChunk: fc.record({
    sessionUpdate: fc.constant('compaction_summary_chunk' as const),
    compactionId: id,
    content: contentBlock,
  }),
} satisfies Record<string, fc.Arbitrary<SessionUpdate>>;

/** Any neutral update. */
export const anyUpdate: fc.Arbitrary<SessionUpdate> = fc.oneof(
  ...Object.values(updates),
) as fc.Arbitrary<SessionUpdate>;
