import type { ElicitationSchema } from '@acp-kit/protocol';
import { asObject, requireString, textContent, ToolInputError, type Tool } from '../tool.js';

export interface AskUserInput {
  question: string;
  /** The answers to choose from; omitted: a free-text answer. */
  choices?: string[];
}

/** The form of one question: a single select when there are choices, a text field otherwise. */
export function askUserSchema(input: AskUserInput): ElicitationSchema {
  const answer = input.choices?.length
    ? { type: 'string' as const, title: input.question, enum: input.choices }
    : { type: 'string' as const, title: input.question, minLength: 1 };
  return { type: 'object', properties: { answer }, required: ['answer'] };
}

/**
 * `ask_user`: asks the user a question through the client's form (`elicitation/create`, form
 * mode), for when a request is ambiguous. Offered only when the client advertised form
 * elicitation (ACP-ALL-ELIC-01); a declined or dismissed question is a result the model reads,
 * not a failure (ACP-ALL-ELIC-08). Never for secrets: form mode must not carry them
 * (ACP-ALL-ELIC-05), so the description says so.
 */
export const askUserTool: Tool<AskUserInput> = {
  name: 'ask_user',
  description:
    'Ask the user a question when the request is ambiguous or a decision is theirs. Give "choices" when the answer is one of a few options. Never ask for passwords, tokens or other secrets.',
  inputSchema: {
    type: 'object',
    properties: {
      question: { type: 'string', description: 'The question, one sentence' },
      choices: { type: 'array', items: { type: 'string' }, description: 'Answers to choose from (optional)' },
    },
    required: ['question'],
    additionalProperties: false,
  },
  kind: 'other',
  mutates: false,
  parse(raw) {
    const o = asObject(raw, 'ask_user');
    const question = requireString(o, 'question', 'ask_user');
    const choices = o.choices;
    if (choices === undefined || choices === null) return { question };
    if (!Array.isArray(choices) || !choices.every((c) => typeof c === 'string' && c.length > 0))
      throw new ToolInputError('ask_user: "choices" must be a list of non-empty strings');
    return choices.length ? { question, choices: [...new Set(choices)] } : { question };
  },
  needsPermission: () => false,
  title: (i) => `Ask: ${i.question}`,
  async execute(input, ctx) {
    if (!ctx.elicit) return { content: [], result: 'This client cannot show questions to the user.', isError: true };
    const answer = await ctx.elicit({ message: input.question, requestedSchema: askUserSchema(input) });
    const value = answer.action === 'accept' ? answer.content?.answer : undefined;
    if (answer.action === 'accept' && typeof value === 'string' && value.length > 0) {
      return {
        content: [textContent(`Answer: ${value}`)],
        result: `The user answered: ${value}`,
        rawOutput: answer,
      };
    }
    const result =
      answer.action === 'decline'
        ? 'The user declined to answer the question.'
        : answer.action === 'cancel'
          ? 'The user dismissed the question without answering.'
          : 'The user accepted but gave no answer.';
    return { content: [textContent(result)], result, rawOutput: answer };
  },
};
