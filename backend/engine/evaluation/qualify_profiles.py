"""The shipped profiles every candidate of a model qualification runs, per reference bot (not TRACER's output).

Written for what each bot does (orders, bookings, questions), in both goal styles; the texts
`benchmarks/sensei_false_findings.py` measures too, on which Parley's imperfect simulated user shows no false finding on the
unmodified bots — so what a candidate shows on the originals is the candidate's doing. A qualification's size
runs the first `max_profiles` of them, `conversations_per_profile` conversations each.
"""

from __future__ import annotations

PROFILES: dict[str, tuple[str, ...]] = {
    "pizza": (
        """
test_name: pizza_house_order
user:
  role: You order a pizza and drinks to pick up tonight.
  goals:
    - "order a {{size}} {{pizza}} pizza"
    - "with {{drinks}} {{drink}} to drink"
    - size: {function: forward(), type: string, data: [small, medium, large]}
    - pizza: {function: another(), type: string, data: [margherita, carbonara, hawaiian, four cheese]}
    - drink: {function: random(), type: string, data: [coke, lemonade, water]}
    - drinks: {function: random(), type: int, data: [1, 2, 3]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: the total price of the order}
    - order_id: {type: string, description: the order number}
conversation:
  number: 6
  goal_style: {all_answered: {limit: 12}}
  interaction_style: [default]
""",
        """
test_name: pizza_build_your_own
user:
  role: You build your own pizza for dinner.
  goals:
    - "build your own {{size}} pizza with {{toppings}}"
    - "and {{drinks}} {{drink}}"
    - size: {function: forward(), type: string, data: [small, medium, large]}
    - toppings: {function: random(2), type: string, data: [ham, olives, mushrooms, corn, peppers, bacon]}
    - drink: {function: random(), type: string, data: [coke, lemonade, water]}
    - drinks: {function: random(), type: int, data: [1, 2]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: the total price of the order}
conversation:
  number: 6
  goal_style: {steps: 10}
  interaction_style: [{random: [single question, short phrases]}]
""",
        """
test_name: pizza_questions
user:
  role: You are thinking of ordering and have questions first.
  goals:
    - ask for the opening hours
    - ask whether you deliver
    - ask which drinks you have
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output: []
conversation:
  number: 4
  goal_style: {all_answered: {limit: 10}}
  interaction_style: [default]
""",
    ),
    "bike": (
        """
test_name: bike_booking
user:
  role: Your bike needs the workshop.
  goals:
    - "book a {{service}} for {{day}} at {{hour}}"
    - service: {function: forward(), type: string, data: [repair, tune-up]}
    - day: {function: random(), type: string, data: [tomorrow, next friday]}
    - hour: {function: random(), type: string, data: [10am, "11:30", 3pm]}
chatbot:
  is_starter: true
  fallback: Sorry, the workshop is noisy today. Could you say that again?
  output:
    - price: {type: money, description: the starting price of the service}
conversation:
  number: 6
  goal_style: {all_answered: {limit: 10}}
  interaction_style: [default]
""",
        """
test_name: bike_questions
user:
  role: You look after your own bike and want advice.
  goals:
    - ask how much a new tire costs
    - ask for tips on bike maintenance
chatbot:
  is_starter: true
  fallback: Sorry, the workshop is noisy today. Could you say that again?
  output: []
conversation:
  number: 4
  goal_style: {steps: 6}
  interaction_style: [default]
""",
    ),
    "photography": (
        """
test_name: photo_estimate
user:
  role: You manage a gallery and need your collection photographed.
  goals:
    - "get a price estimate for {{count}} {{kind}} in {{medium}}"
    - count: {function: random(), type: int, data: [3, 12, 40]}
    - kind: {function: forward(), type: string, data: [paintings, sculptures, ceramics]}
    - medium: {function: random(), type: string, data: [photography, video]}
chatbot:
  is_starter: true
  fallback: Sorry, I can arrange a contact call, estimate the price of a session, or answer questions
  output:
    - price: {type: money, description: the estimated price}
conversation:
  number: 6
  goal_style: {steps: 8}
  interaction_style: [default]
""",
        """
test_name: photo_call
user:
  role: You want the studio to call you back.
  goals:
    - "arrange a call; my name is {{name}}, my phone is 555 201 3344"
    - "the call should be {{day}}"
    - name: {function: forward(), type: string, data: [Ada Lovelace, Grace Hopper]}
    - day: {function: random(), type: string, data: [tomorrow, next tuesday]}
chatbot:
  is_starter: true
  fallback: Sorry, I can arrange a contact call, estimate the price of a session, or answer questions
  output:
    - call_day: {type: date, description: the day the studio will call}
conversation:
  number: 4
  goal_style: {all_answered: {limit: 10}}
  interaction_style: [default]
""",
    ),
    "veterinary": (
        """
test_name: vet_visit
user:
  role: Your pet needs a check-up.
  goals:
    - "book a visit for my {{animal}} {{day}} at {{hour}}"
    - animal: {function: forward(), type: string, data: [dog, cat, bird, rabbit]}
    - day: {function: random(), type: string, data: [tomorrow, next monday]}
    - hour: {function: random(), type: string, data: [9am, 2pm, "10:30"]}
chatbot:
  is_starter: true
  fallback: Sorry, I didn't understand that. Could you say it another way?
  output:
    - fee: {type: money, description: the cost of the visit}
conversation:
  number: 8
  goal_style: {all_answered: {limit: 10}}
  interaction_style: [default]
""",
        """
test_name: vet_questions
user:
  role: You are choosing a vet for your new pet.
  goals:
    - ask whether the clinic is open at weekends
    - ask which animals you treat
chatbot:
  is_starter: true
  fallback: Sorry, I didn't understand that. Could you say it another way?
  output: []
conversation:
  number: 4
  goal_style: {all_answered: {limit: 8}}
  interaction_style: [default]
""",
    ),
}
