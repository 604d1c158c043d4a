"""Starting points offered by the editor's "new" buttons: small, commented and valid as they are."""

PROFILE = """\
# A SENSEI user profile: who the simulated user is, what they want, and what the chatbot should give back.
test_name: order_a_pizza
llm:
  model: gpt-4o-mini
  temperature: 0.8
user:
  language: English
  role: You are a customer who wants to order a pizza for pickup.
  context:
    - personality: impatient-user
    - Your name is Sam and you will pick the order up yourself.
  goals:
    - "order a {{size}} {{flavour}} pizza"
    - ask how long it will take
    - size:
        function: forward()
        type: string
        data: [small, medium, large]
    - flavour:
        function: forward()
        type: string
        data: [margherita, pepperoni]
chatbot:
  is_starter: false
  fallback: I'm sorry, I did not understand that.
  output:
    - price:
        type: money
        description: the total price of the order
    - waiting_time:
        type: string
        description: how long the order will take
conversation:
  number: all_combinations
  goal_style:
    steps: 12
  interaction_style:
    - single question
"""

RULE = """\
# A SENSEI-check rule: for every conversation where `when` and `if` hold, `then` must be true.
# It names only built-ins, so it is valid in any project. Your profiles' variables and outputs are there too,
# as inputs.<name> and outputs.<name> (e.g. `then: outputs.price is not None`): names no profile defines are
# reported when you save.
name: no_empty_replies
description: The chatbot never sends an empty message.
active: true
conversations: 1
when: len(chatbot_phrases) > 0
then: all(len(phrase.strip()) > 0 for phrase in chatbot_phrases)
on-error: The chatbot sent an empty message.
"""

PERSONALITY = """\
# A personality: sentences added to the simulated user's context. Profiles name it under `context`.
name: careful-planner
context:
  - You plan ahead and like to confirm every detail before you commit.
  - You ask the assistant to repeat the important facts at the end.
"""
