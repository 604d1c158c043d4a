"""Each reference bot's happy and error paths, driven by scripted users: replies and coverage counts."""

from __future__ import annotations

import pytest

from engine.bots import coverage_percentages, load_bot, manifest, open_bot
from tests.engine.bots.scripts import SCRIPTS, TODAY, talk


def counts(bot):
    log = bot.coverage
    return len(log.modules), len(log.inputs_filled), len(log.values), len(log.questions)


def test_bike_books_a_repair_step_by_step():
    said, bot = talk(load_bot("bike"), SCRIPTS["bike"]["repair"])
    assert said[1].startswith("Welcome to Spoke & Chain!")
    assert said[2] == "We are open Monday to Friday, from 9am to 5:30pm."
    assert said[3:5] == [
        "Which day would you like to bring the bike?",
        "At what time? We are open from 9am to 5:30pm.",
    ]
    assert said[5] == (
        "Done! Your repair is booked for 11/03/2027 at 10:00. It starts at 35$; we confirm the final cost when "
        "we see the bike."
    )
    assert counts(bot) == (2, 3, 1, 0)
    assert bot.coverage.inputs_requested == {("book_service", "date"), ("book_service", "time")}


def test_bike_rejects_what_it_cannot_do_and_takes_corrections():
    said, _ = talk(load_bot("bike"), SCRIPTS["bike"]["errors"])
    assert "Sorry, we have no paint job. The options for service are repair and tune-up." in said
    assert "Sorry, 09/03/2027 is in the past. Please give a date from today on." in said
    assert "Sorry, 08:00 is outside our hours (09:00 to 17:30)." in said
    assert "OK, I changed the service to repair." in said
    assert said[-1].startswith("Done! Your repair is booked for 15/03/2027 at 11:15.")


def test_bike_answers_faq_even_in_the_middle_of_a_booking_and_falls_back_otherwise():
    said, bot = talk(load_bot("bike"), SCRIPTS["bike"]["faq"])
    assert said[1:5] == [
        "A new tire costs 20$, fitting included.",
        "A tune-up costs 150$.",
        "A new seat costs between 50$ and 100$, depending on the model.",
        "Clean it regularly, keep the tires at the right pressure and oil the chain every few weeks.",
    ]
    assert said[5] == "Sorry, the workshop is noisy today. Could you say that again?"
    assert bot.coverage.fallbacks == 1 and len(bot.coverage.questions) == 4
    said, _ = talk(load_bot("bike"), SCRIPTS["bike"]["faq_midway"])
    assert said[2:4] == [
        "A new tire costs 20$, fitting included.",
        "Which day would you like to bring the bike?",
    ]
    assert said[-1].startswith("Done! Your repair is booked for 12/03/2027 at 12:00.")


def test_bike_refuses_other_languages_and_takes_everything_in_one_message():
    said, _ = talk(load_bot("bike"), SCRIPTS["bike"]["other"])
    assert said[1].startswith("You can ask me: How much is a new tire?")
    assert said[2] == "Sorry, I can only talk in English."
    said, _ = talk(load_bot("bike"), SCRIPTS["bike"]["all_in_one"])
    assert said[1].startswith("Done! Your tune-up is booked for 12/03/2027 at 14:00. It starts at 150$;")


def test_veterinary_books_by_kind_of_animal():
    said, bot = talk(load_bot("veterinary"), SCRIPTS["veterinary"]["dog"])
    assert said[2] == "The clinic is open on weekdays from 8:30am to 6pm."
    assert said[-1] == (
        "Your visit for your dog is booked on 11/03/2027 at 10:00. A standard visit costs 55$. See you then!"
    )
    assert counts(bot) == (2, 3, 1, 0)
    said, _ = talk(load_bot("veterinary"), SCRIPTS["veterinary"]["all_in_one"])
    assert said[-1].startswith("Your visit for your rabbit is booked on 15/03/2027 at 11:00.")


def test_veterinary_error_paths():
    said, bot = talk(load_bot("veterinary"), SCRIPTS["veterinary"]["errors"])
    assert "Sorry, we don't treat snake here. We see these animals: dog, cat, bird and rabbit." in said
    assert "Sorry, 01/03/2027 is in the past. Please give a date from today on." in said
    assert "Sorry, 19:00 is outside our hours (08:30 to 18:00)." in said
    assert "OK, I changed the animal to cat." in said
    assert said[-1].startswith("Your visit for your cat is booked on 12/03/2027 at 09:30.")
    assert bot.coverage.values == {("visit", "animal", "bird"), ("visit", "animal", "cat")}


def test_veterinary_faq_covers_every_question():
    said, bot = talk(load_bot("veterinary"), SCRIPTS["veterinary"]["faq"])
    assert said[2] == "We are closed at weekends; for emergencies call the Riverside animal hospital."
    assert said[-1] == "Sorry, I didn't understand that. Could you say it another way?"
    assert coverage_percentages(manifest("veterinary"), [bot.coverage])["question"] == 100.0


def test_photography_contact_with_an_optional_email():
    said, bot = talk(load_bot("photography"), SCRIPTS["photography"]["contact"])
    assert said[2] == (
        "May I have your name? If you like, you can also tell me your e-mail address (optional)."
    )
    assert said[-1] == "Thank you, Ada Lovelace! We will call you at +44 20 7946 0958 on 16/03/2027."
    assert ("contact", "email") not in bot.coverage.inputs_filled
    said, bot = talk(load_bot("photography"), SCRIPTS["photography"]["contact_at_once"])
    assert said[-1] == "Thank you, Grace Hopper! We will call you at 555-123456 on 11/03/2027."
    assert ("contact", "email") in bot.coverage.inputs_filled


def test_photography_estimate_with_formula_and_memory_across_steps():
    said, bot = talk(load_bot("photography"), SCRIPTS["photography"]["estimate"])
    assert said[-2:] == [
        "Thanks! That is 12 sculpture artworks in video.",
        "The estimate is about 17280$; the final price depends on the size of the artworks.",
    ]
    assert counts(bot) == (3, 6, 4, 0)
    said, _ = talk(load_bot("photography"), SCRIPTS["photography"]["estimate_at_once"])
    assert said[-1].startswith("The estimate is about 480$;")
    said, _ = talk(load_bot("photography"), SCRIPTS["photography"]["estimate_errors"])
    assert "Sorry, 0 is not possible for the number of artworks: it must be between 1 and 500." in said
    assert "OK, I changed the medium to video." in said
    assert said[-1].startswith("The estimate is about 360$;")


def test_pizza_house_order_with_price_and_order_id():
    said, bot = talk(load_bot("pizza"), SCRIPTS["pizza"]["house"])
    assert said[1] == "Great choice, a large margherita pizza!"
    assert said[3] == "We have coke and lemonade at 2$ each, and water at 1.20$."
    assert said[-2] == "The total for your large margherita and 2 coke is 21$."
    assert said[-1].startswith("Your order number is ")
    assert counts(bot) == (7, 12, 9, 1)
    other, _ = talk(load_bot("pizza"), SCRIPTS["pizza"]["house"])
    assert other == said  # deterministic for the same conversation id


def test_pizza_custom_order_with_a_correction_in_a_later_step():
    said, _ = talk(load_bot("pizza"), SCRIPTS["pizza"]["custom"])
    assert "Sorry, we have no extra large. The options for size are small, medium and large." in said
    assert "Nice, a medium pizza with ham, pepperoni, olives and mushrooms!" in said
    assert "OK, I changed the size to large." in said
    assert (
        "The total for your large pizza with ham, pepperoni, olives and mushrooms and 3 lemonade is 24.50$."
        in said
    )


def test_order_ids_differ_between_conversations():
    ids = set()
    for n in range(3):
        bot = open_bot("pizza", conversation_id=f"c{n}", today=TODAY)
        ids.add(bot.reply("order a medium marinara please").text + bot.reply("4 water").messages[-1])
    assert len(ids) == 3


def test_pizza_fallbacks_cancel_and_language():
    said, bot = talk(load_bot("pizza"), SCRIPTS["pizza"]["faq"])
    assert said[6].startswith("Sorry, I didn't catch that.")
    assert said[7] == "Would you like one of our house pizzas, or would you rather build your own?"
    assert said[8] == "Sorry, please tell me whether you want a house pizza or want to build your own."
    assert bot.coverage.fallbacks == 2 and len(bot.coverage.questions) == 6
    said, _ = talk(load_bot("pizza"), SCRIPTS["pizza"]["other"])
    assert said[-2] == "OK, I have cancelled that. What else can I do for you?"
    assert said[-1] == "Sorry, I can only talk in English."


def test_all_pizza_scripts_cover_the_whole_ground_truth():
    logs = [talk(load_bot("pizza"), script)[1].coverage for script in SCRIPTS["pizza"].values()]
    result = coverage_percentages(manifest("pizza"), logs)
    assert (result["module"], result["input"], result["value"], result["question"]) == (
        100.0,
        100.0,
        100.0,
        100.0,
    )
    single = coverage_percentages(manifest("pizza"), logs[:1])
    assert single["counts"]["values"] == [9, 78] and single["value"] == 11.54


@pytest.mark.parametrize("bot_id", ["bike", "veterinary", "photography", "cafeteria-es"])
def test_the_scripts_cover_every_module_input_value_and_question(bot_id):
    logs = [talk(load_bot(bot_id), script)[1].coverage for script in SCRIPTS[bot_id].values()]
    result = coverage_percentages(manifest(bot_id), logs)
    assert {k: result[k] for k in ("module", "input", "value", "question")} == dict.fromkeys(
        ("module", "input", "value", "question"), 100.0
    )


def test_the_spanish_bot_speaks_spanish_and_refuses_english():
    said, _ = talk(load_bot("cafeteria-es"), SCRIPTS["cafeteria-es"]["de_golpe"])
    assert said[-1] == "Perfecto, 2 café grande (avena). Son 4.60 euros. ¡Enseguida está!"
    said, _ = talk(load_bot("cafeteria-es"), SCRIPTS["cafeteria-es"]["errores"])
    assert "Lo siento, no tenemos mediano. Las opciones de tamaño son pequeño y grande." in said
    said, _ = talk(load_bot("cafeteria-es"), SCRIPTS["cafeteria-es"]["idioma"])
    assert said[-1] == "Lo siento, solo puedo hablar en español."


def test_open_bot_is_the_in_process_api():
    bot = open_bot("bike", conversation_id="x", today=TODAY)
    opening = bot.start()
    assert opening.messages[0].startswith("Hi! Spoke & Chain Cycles here.")
    assert opening.buttons == [
        "Opening hours",
        "Book an appointment",
        "Questions about prices and care",
        "Welcome",
    ]
    reply = bot.reply("book an appointment")
    assert reply.buttons == ["repair", "tune-up"]
    assert bot.coverage.to_json(manifest("bike"))["coverage"]["module"] == pytest.approx(66.67)
