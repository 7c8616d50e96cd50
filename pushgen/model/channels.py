"""Notification channels: what an app of each kind can post.

An Android app posts through a few notification channels (WhatsApp: messages, calls, group
summaries), and each channel fixes the notification's ``category``, ``priority``,
``visibility`` and ``ongoing``; its subjects come from the channel's topics and its
``numberOfUpdates`` from the channel's allowed levels. A notification is *possible* for an
app exactly when one of the app's kind's channels produces it: the generator samples only
through channels, and the judge gives P(open) = 0 to anything else
(``pushgen.model.feasibility``).

Each channel also names its *group*, the kind of content whose appeal depends on the context
(``pushgen.model.interactions``), and whether it is the kind's *triggered* channel: the one
an app posts through while its trigger lasts (music playback, navigation, workout tracking).
"""

from __future__ import annotations

from dataclasses import dataclass

GROUPS = (
    "chat",          # personal messages
    "call",          # calls, missed calls
    "work",          # work email, work tools, reminders at work
    "promotion",     # offers, deals, marketing email
    "social",        # social feeds and activity
    "news",          # news, live scores, weather
    "playback",      # media playback controls
    "entertainment",  # video, games, music suggestions
    "system",        # device and app status, background services
    "calendar",      # events and reminders
    "alarm",         # clock alarms
    "navigation",    # maps, rides, trip updates
    "finance",       # transactions, security
    "order",         # order and delivery status
    "fitness",       # workout tracking, health reminders
)

ANY_UPDATES = ("none", "low", "medium", "high")
THREAD_UPDATES = ("none", "low", "medium", "high")  # conversations count their follow-ups
SUMMARY_UPDATES = ("low", "none", "medium", "high")  # a group summary is usually updated


@dataclass(frozen=True)
class Channel:
    name: str
    share: float  # share of the app's (untriggered) posts that use this channel
    category: str
    priority: str
    visibility: str
    ongoing: bool
    updates: tuple[str, ...]  # allowed numberOfUpdates levels, the first the usual one
    subjects: tuple[str, ...]
    group: str
    triggered: bool = False  # the channel the app posts through while its trigger lasts


CONVERSATION = ("text & instant messaging", "other - conversation chatter", "family & relationships",
                "people & society", "humor", "family", "special occasions", "email & messaging",
                "clip art & animated gifs", "cards & greetings", "unknown")
WORK_MAIL = ("email & messaging", "business & industrial", "jobs & education", "business services",
             "corporate events", "accounting & auditing", "business operations", "job listings",
             "career resources & planning", "enterprise technology", "legal", "admin", "unknown")
MARKETING = ("shopping", "e-commerce services", "coupons & discount offers", "travel", "software",
             "apparel", "footwear", "consumer electronics", "insurance", "credit & lending",
             "real estate listings", "service providers", "online media")
FEED = ("social networks", "online communities", "people & society", "humor", "funny pictures & videos",
        "arts & entertainment", "sports", "news", "online image galleries", "photographic & digital arts",
        "pets & animals", "hobbies & leisure", "food & drink", "beauty & fitness", "social issues & advocacy",
        "visual art & design", "fun tests & silly surveys", "weddings", "home & garden", "crafts")
HEADLINES = ("news", "politics", "law & government", "crime & justice", "world music", "government",
             "military", "public safety", "emergency services", "law enforcement", "social issues & advocacy",
             "green living & environmental issues", "business & industrial", "finance", "health",
             "science", "religion & belief", "charity & philanthropy")
FEATURES = ("entertainment media", "science", "health", "earth sciences", "astronomy", "space technology",
            "biological sciences", "books & literature", "performing arts",
            "libraries & museums", "biographies & quotations", "real estate", "energy & utilities",
            "travel", "food & drink", "movies", "arts & entertainment", "online media", "neuroscience")
SCORES = ("sports news", "soccer", "basketball", "rugby", "cricket", "golf", "hockey", "boxing",
          "motor sports", "american football", "college sports", "international sports competitions",
          "team sports", "racquet sports", "combat sports", "wrestling", "martial arts", "weather")
MUSIC = ("music & audio", "pop music", "rock music", "classical music", "urban & hip-hop", "country music",
         "radio", "world music", "e-books", "books & literature", "music reference", "poetry",
         "children's literature", "audio equipment")
DEVICE = ("mobile apps & add-ons", "software", "mobile & wireless", "consumer electronics",
          "internet & telecom", "web services", "computer hardware", "computers & electronics",
          "internet software", "multimedia software", "networking", "unknown")
SECURITY = ("computer security", "security products & services", "network monitoring & management",
            "software", "mobile & wireless", "unknown")
LEARNING = ("education", "distance learning", "jobs & education", "training & certification",
            "foreign language resources", "colleges & universities", "standardized & admissions tests",
            "mathematics", "computer science", "programming", "engineering & technology",
            "primary & secondary schooling (k-12)", "reference", "dictionaries & encyclopedias",
            "general reference")
EVENTS = ("corporate events", "events & listings", "special occasions", "holidays & seasonal events",
          "family", "expos & conventions", "weddings", "performing arts", "unknown")
TRIPS = ("maps", "bus & rail", "car rental & taxi services", "air travel", "travel",
         "transportation & logistics", "autos & vehicles", "motor vehicles (by type)",
         "hybrid & alternative vehicles", "vehicle parts & accessories")
DESTINATIONS = ("travel", "tourist destinations", "hotels & accommodations", "air travel",
                "hiking & camping", "residential rentals")
MONEY = ("banking", "credit cards", "billing & invoicing", "finance", "currencies & foreign exchange")
MARKETS = ("investing", "currencies & foreign exchange", "finance", "gambling", "insurance",
           "credit & lending", "lottery", "real estate")
FOOD = ("food & drink", "restaurants", "fast food", "pizzerias", "cooking & recipes", "food",
        "food and drink", "desserts", "beverages", "baked goods", "coffee & tea", "candy & sweets",
        "special & restricted diets", "food service", "food & grocery retailers")
DELIVERY = ("mail & package delivery", "food & grocery retailers", "fast food", "pizzerias", "restaurants",
            "e-commerce services", "shopping")
DATING = ("dating & personals", "people & society", "family & relationships", "marriage", "weddings")
SCREEN = ("online video", "tv shows & programs", "movies", "tv & video", "comics & animation",
          "funny pictures & videos", "entertainment media", "performing arts", "online media")
PLAY = ("games", "computer & video games", "simulation games", "roleplaying games", "lottery",
        "fun tests & silly surveys", "virtual worlds")
WORKOUT = ("fitness", "cycling", "individual sports", "hiking & camping", "team sports", "racquet sports")
WELLBEING = ("health", "nutrition", "fitness", "beauty & fitness", "health conditions", "pain management",
             "oral & dental care", "special & restricted diets", "hair care", "medical facilities & services")

KIND_CHANNELS: dict[str, tuple[Channel, ...]] = {
    "messaging": (
        Channel("messages", 0.86, "msg", "high", "private", False, THREAD_UPDATES, CONVERSATION, "chat"),
        Channel("group summaries", 0.10, "msg", "default", "private", False, SUMMARY_UPDATES,
                ("people & society", "humor", "other - conversation chatter", "events & listings",
                 "family", "sports"), "chat"),
        Channel("calls", 0.04, "call", "max", "private", False, ("none",),
                ("text & instant messaging", "family & relationships", "family"), "call"),
    ),
    "email": (
        Channel("inbox", 0.72, "email", "default", "private", False, ("none", "low"), WORK_MAIL, "work"),
        Channel("important", 0.10, "email", "high", "private", False, ("none",),
                ("business & industrial", "jobs & education", "corporate events", "finance",
                 "billing & invoicing", "legal"), "work"),
        Channel("promotions", 0.18, "email", "low", "public", False, ("none",), MARKETING, "promotion"),
    ),
    "social": (
        Channel("feed", 0.50, "recommendation", "default", "public", False, ("none",), FEED, "social"),
        Channel("activity", 0.25, "unknown", "low", "public", False, ("none", "low"),
                ("social networks", "online communities", "people & society", "humor",
                 "online image galleries"), "social"),
        Channel("direct messages", 0.20, "msg", "high", "private", False, ("none", "low", "medium"),
                ("people & society", "social networks", "humor", "text & instant messaging",
                 "family & relationships"), "chat"),
        Channel("events", 0.05, "event", "default", "public", False, ("none",),
                ("events & listings", "arts & entertainment", "expos & conventions", "performing arts"),
                "social"),
    ),
    "news": (
        Channel("breaking news", 0.20, "recommendation", "high", "public", False, ("none",), HEADLINES,
                "news"),
        Channel("stories", 0.55, "recommendation", "default", "public", False, ("none",),
                HEADLINES + FEATURES, "news"),
        Channel("live updates", 0.25, "unknown", "low", "public", False, ("none", "low", "medium"), SCORES,
                "news"),
    ),
    "audio": (
        Channel("playback", 0.0, "transport", "low", "public", True, ANY_UPDATES, MUSIC, "playback",
                triggered=True),
        Channel("suggestions", 0.8, "recommendation", "default", "public", False, ("none",), MUSIC,
                "entertainment"),
        Channel("new releases", 0.2, "unknown", "low", "public", False, ("none",), MUSIC, "entertainment"),
    ),
    "system": (
        Channel("status", 0.45, "status", "low", "public", False, ("none", "low"), DEVICE, "system"),
        Channel("background service", 0.30, "service", "min", "public", True, ANY_UPDATES, DEVICE, "system"),
        Channel("alerts", 0.15, "err", "high", "public", False, ("none",), SECURITY, "system"),
        Channel("other", 0.10, "unknown", "unknown", "public", False, ("none",), DEVICE, "system"),
    ),
    "productivity": (
        Channel("reminders", 0.30, "reminder", "high", "private", False, ("none",),
                ("business services", "jobs & education", "education", "training & certification",
                 "business operations"), "work"),
        Channel("sync", 0.30, "service", "low", "private", True, ANY_UPDATES,
                ("software", "enterprise technology", "business services", "internet software"), "system"),
        Channel("activity", 0.40, "unknown", "default", "private", False, ("none", "low"),
                (*LEARNING, "business services", "enterprise technology", "expos & conventions"), "work"),
    ),
    "calendar": (
        Channel("events", 0.6, "event", "high", "private", False, ("none", "low"), EVENTS, "calendar"),
        Channel("reminders", 0.4, "reminder", "default", "private", False, ("none",), EVENTS, "calendar"),
    ),
    "calls": (
        Channel("incoming calls", 0.50, "call", "max", "public", True, ("none",),
                ("family & relationships", "internet & telecom", "family", "unknown"), "call"),
        Channel("missed calls", 0.35, "call", "high", "public", False, ("none", "low"),
                ("family & relationships", "internet & telecom", "family", "unknown"), "call"),
        Channel("voicemail", 0.15, "status", "default", "public", False, ("none",),
                ("internet & telecom", "unknown"), "system"),
    ),
    "clock": (
        Channel("alarm", 0.0, "alarm", "max", "public", True, ("none",), ("unknown",), "alarm",
                triggered=True),
        Channel("upcoming alarm", 1.0, "alarm", "low", "public", False, ("none",), ("unknown",), "alarm"),
    ),
    "travel": (
        Channel("navigation", 0.0, "service", "high", "public", True, ("low", "medium", "high"),
                ("maps", "bus & rail", "transportation & logistics"), "navigation", triggered=True),
        Channel("trip updates", 0.55, "unknown", "high", "public", False, ("none", "low", "medium"), TRIPS,
                "navigation"),
        Channel("offers", 0.45, "recommendation", "default", "public", False, ("none",), DESTINATIONS,
                "promotion"),
    ),
    "finance": (
        Channel("transactions", 0.55, "status", "high", "private", False, ("none",), MONEY, "finance"),
        Channel("security", 0.10, "err", "max", "secret", False, ("none",),
                ("banking", "credit cards", "computer security"), "finance"),
        Channel("markets and offers", 0.35, "recommendation", "default", "public", False, ("none",),
                MARKETS, "promotion"),
    ),
    "shopping_food": (
        Channel("deals", 0.55, "recommendation", "low", "public", False, ("none",), FOOD + MARKETING,
                "promotion"),
        Channel("order status", 0.35, "status", "default", "public", False, ("none", "low"), DELIVERY,
                "order"),
        Channel("delivery tracking", 0.10, "status", "high", "public", True, ("low", "medium", "high"),
                DELIVERY, "order"),
    ),
    "dating": (
        Channel("messages", 0.50, "msg", "high", "private", False, ("none", "low", "medium"), DATING, "chat"),
        Channel("matches", 0.35, "recommendation", "high", "secret", False, ("none",),
                ("dating & personals",), "social"),
        Channel("promotions", 0.15, "unknown", "low", "public", False, ("none",), ("dating & personals",),
                "promotion"),
    ),
    "video": (
        Channel("recommendations", 0.75, "recommendation", "default", "public", False, ("none",), SCREEN,
                "entertainment"),
        Channel("new episodes", 0.25, "event", "default", "public", False, ("none",),
                ("tv shows & programs", "movies", "tv & video", "comics & animation"), "entertainment"),
    ),
    "health": (
        Channel("workout tracking", 0.0, "status", "low", "private", True, ("low", "medium", "high"),
                WORKOUT, "fitness", triggered=True),
        Channel("reminders", 0.55, "reminder", "default", "private", False, ("none",), WELLBEING, "fitness"),
        Channel("summaries", 0.45, "unknown", "low", "private", False, ("none",), WELLBEING + WORKOUT,
                "fitness"),
    ),
    "games": (
        Channel("events", 0.4, "event", "high", "public", False, ("none",), PLAY, "entertainment"),
        Channel("promotions", 0.6, "recommendation", "default", "public", False, ("none",), PLAY,
                "promotion"),
    ),
}
