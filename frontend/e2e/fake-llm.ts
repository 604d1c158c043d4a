import { type APIRequestContext, expect } from "@playwright/test";

/**
 * The e2e stack's fake OpenAI-compatible LLM server (`engine/llm/offline/server.py`), steered over HTTP, and
 * the script the dashboards and the journey share.
 */
export const FAKE_LLM_URL = process.env.PARLEY_FAKE_LLM_URL ?? "http://127.0.0.1:8093/v1";
/** The fake server's control endpoints sit beside `/v1`. */
export const FAKE_LLM_CONTROL = FAKE_LLM_URL.replace(/\/v1\/?$/, "");

const SIZES = ["small", "medium", "large"];

/**
 * What the fake LLM answers, per caller tag (`engine/llm/offline/script.py`), so that TRACER finds the pizza bot's
 * ordering steps in two categories, with a join (drinks follow either way of choosing a pizza), and writes two
 * profiles that SENSEI can play. Unscripted tags get schema-valid sample answers.
 */
export const LLM_SCRIPT: Record<string, unknown> = {
  "tracer.probe": { json: { languages: ["English"], fallback: null } },
  "tracer.explore": Array.from({ length: 8 }, () => [
    "Order pizza and drinks",
    "House pizza",
    "large carbonara",
    "Build your own",
    "Questions about the shop",
  ]).flat(),
  "tracer.extract": [
    {
      json: {
        functionalities: [
          {
            name: "show_main_menu",
            description: "Greets the user and offers the main menu",
            parameters: [],
            outputs: [],
          },
          {
            name: "choose_house_pizza",
            description: "Asks for the size and the pizza from the menu",
            parameters: [
              { name: "size", description: "the pizza size", options: SIZES },
              { name: "pizza", description: "the house pizza", options: ["margherita", "carbonara", "hawaiian"] },
            ],
            outputs: [],
          },
          {
            name: "build_custom_pizza",
            description: "Asks for the size and the toppings of a custom pizza",
            parameters: [
              { name: "size", description: "the pizza size", options: SIZES },
              { name: "toppings", description: "the toppings", options: ["cheese", "ham", "olives"] },
            ],
            outputs: [],
          },
          {
            name: "order_drinks",
            description: "Offers drinks and confirms the order with its price",
            parameters: [{ name: "drink", description: "the drink", options: ["coke", "lemonade", "water"] }],
            outputs: [{ name: "price", description: "the total price of the order" }],
          },
          {
            name: "answer_shop_questions",
            description: "Answers questions about the shop",
            parameters: [],
            outputs: [],
          },
        ],
      },
    },
    { json: { functionalities: [] } },
  ],
  "tracer.consolidate": { json: { verdicts: [] } },
  "tracer.fallback": { json: { is_fallback: false } },
  "tracer.classify": { json: { chatbot_type: "transactional" } },
  "tracer.workflow": {
    json: {
      nodes: [
        { name: "show_main_menu", parents: [], category: "Navigation" },
        { name: "choose_house_pizza", parents: ["show_main_menu"], category: "Ordering" },
        { name: "build_custom_pizza", parents: ["show_main_menu"], category: "Ordering" },
        { name: "order_drinks", parents: ["choose_house_pizza", "build_custom_pizza"], category: "Ordering" },
        { name: "answer_shop_questions", parents: ["show_main_menu"], category: "Navigation" },
      ],
    },
  },
  "tracer.group": {
    json: {
      profiles: [
        {
          name: "Pizza orderer",
          role: "A customer who orders a house pizza and a drink.",
          functionalities: ["choose_house_pizza", "order_drinks"],
        },
        {
          name: "Curious customer",
          role: "A customer with questions about the shop.",
          functionalities: ["answer_shop_questions"],
        },
      ],
    },
  },
  "tracer.profiles": {
    json: {
      goals: ["Ask for the available {{choice}} options", "Pick {{ choice }} and finish the order"],
      variables: [{ name: "choice", source: "DS1", out_of_range: "something unusual" }],
      context: ["You are in a hurry."],
      outputs: [{ name: "confirmation", type: "string", description: "the final confirmation" }],
    },
  },
  "sensei.user_turn": Array.from({ length: 60 }, () => [
    "I want to order a pizza",
    "House pizza",
    "large <b>carbonara</b>",
    "2",
    "coke",
  ]).flat(),
  "sensei.extract": { json: { confirmation: "All done, thank you." } },
};

/** Resets the fake server and gives it `script` (caller tag → replies). */
export async function scriptFakeLlm(request: APIRequestContext, script: Record<string, unknown> = LLM_SCRIPT) {
  await request.post(`${FAKE_LLM_CONTROL}/_fake/reset`);
  for (const [tag, replies] of Object.entries(script)) {
    const response = await request.post(`${FAKE_LLM_CONTROL}/_fake/script`, {
      data: { tag, replies: Array.isArray(replies) ? replies : [replies] },
    });
    expect(response.ok(), `scripting ${tag}`).toBe(true);
  }
}
