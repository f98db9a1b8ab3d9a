package evalset

// The chat corpus: long histories of a person talking with the assistant
// over months — a life, a job, plans — many dated sessions each, facts said
// in passing, preferences never named in the questions, events that need
// two sessions, relative dates ("yesterday", "next month"), sessions the
// assistant opens before any prompt, and, for one person, the Chinese
// requests that open most of their prompts (幫我, 確認, 檔案, 調整).
//
// Written on 2026-11-25, before any ranking was tuned on it, and not to be
// edited to make a figure better. Every question is tagged dev (may be
// looked at while tuning) or held (never looked at while tuning: the
// figures that count). Kinds:
//
//   - single: one session holds the answer; the question shares a word or
//     two with it.
//   - paraphrase: the question names no content word of the answer's
//     session (a gift for someone who took up pottery).
//   - multihop: two sessions together answer it; both are needed (all).
//   - temporal: the answer is found by when: the session's date, a date
//     said relative to it, "the week before", "last spring".
//   - opening: the answer is in what the assistant said before the
//     person's first prompt.

// chatPerson is one person's history, a project folder of their own.
type chatPerson struct {
	project, lang string
	sessions      []chatSession
	questions     []chatQuestion
}

// chatSession is one conversation: the day it was held (days after
// chatBase), what the assistant said before any prompt, and the turns.
type chatSession struct {
	day     int
	opening string
	turns   [][2]string // person, assistant
}

type chatQuestion struct {
	text, kind, split string
	answers           []int // session indices
}

var chatPeople = []chatPerson{
	{project: "maya", lang: "en", sessions: []chatSession{
		/* 0 */ {day: 0, turns: [][2]string{
			{"Hi! I could use help settling in. I moved to Lisbon from Toronto last week and everything is new.", "Welcome to Lisbon! Happy to help. What would be most useful first — neighbourhoods, paperwork, or getting around?"},
			{"Paperwork first. I need a NIF and I have no idea where to start.", "You can get a NIF at any Finanças office with your passport and proof of address; as a non-resident you may need a fiscal representative."},
			{"ok, I'll go on Monday. thanks", "Good luck! Bring copies of everything."},
		}},
		/* 1 */ {day: 6, turns: [][2]string{
			{"Big news: we adopted a rescue greyhound yesterday. His name is Pixel and he is terrified of the stairs.", "Congratulations! Retired racing greyhounds often have never seen stairs. Go one step at a time with treats and lots of patience."},
			{"He sleeps 18 hours a day, is that normal?", "Yes — greyhounds are famous couch potatoes. Short walks and lots of naps are completely normal."},
		}},
		/* 2 */ {day: 12, turns: [][2]string{
			{"I want a hobby that gets me off screens. Any ideas?", "Climbing, a language class, cooking, ceramics, a choir… what appeals to you?"},
			{"I signed up for a ceramics class on Thursday evenings in Alfama. Throwing bowls on the wheel is the most calming thing I've done in years.", "That sounds wonderful. Centring the clay takes practice; don't worry if the first bowls collapse."},
			{"three collapsed already haha", "Everyone's do! It gets easier around the fifth session."},
		}},
		/* 3 */ {day: 18, turns: [][2]string{
			{"Can you help me prepare for my first day tomorrow? I start at Quanta, a fintech startup, as a senior product designer.", "Of course. Prepare a short intro about your past work, questions about the team's design process, and ask early who your main stakeholders are."},
			{"what should I wear to a startup?", "Smart casual is almost always safe; you can adjust after the first day."},
		}},
		/* 4 */ {day: 24, opening: "Welcome back! Last time you mentioned your sister Inês was flying in from Porto on Friday — I hope the visit went well.", turns: [][2]string{
			{"It did! We spent Saturday in Sintra. Now I need a restaurant recommendation for tonight, something with fish.", "In Lisbon, try a marisqueira in Cais do Sodré, or grilled sardines at a tasca in Alfama if it's warm."},
			{"perfect, sardines it is", "Enjoy!"},
		}},
		/* 5 */ {day: 31, turns: [][2]string{
			{"I'm so sore today. Yesterday I ran my first 10k, along the river from Belém, in 58 minutes!", "That's a great first 10k time! Stretch gently today, drink water, and take a rest day before your next run."},
			{"should I sign up for a half marathon?", "Give yourself a couple of months building mileage first; autumn races would be a good target."},
		}},
		/* 6 */ {day: 37, turns: [][2]string{
			{"Weird week. I had a reaction at a work lunch and the doctor confirmed I'm allergic to cashews. Explains so much.", "I'm glad you found out. Cashews hide in pesto, some curries and vegan cheeses — ask restaurants, and carry the antihistamines your doctor recommended."},
			{"I love pesto though", "Basil pesto made with pine nuts is usually fine — just check it has no cashews."},
		}},
		/* 7 */ {day: 44, turns: [][2]string{
			{"Help me plan a trip: we booked flights to Kyoto for the second week of September.", "Lovely! Kyoto in September is still warm. Book temple visits ahead — Saihō-ji, the moss garden, needs a reservation by post or online weeks in advance."},
			{"can you make a rough 6 day itinerary?", "Day 1 Higashiyama, day 2 Arashiyama, day 3 Fushimi Inari early, day 4 Nara day trip, day 5 Saihō-ji and western temples, day 6 Nishiki market and shopping."},
		}},
		/* 8 */ {day: 50, turns: [][2]string{
			{"My manager Rui asked me to lead the redesign of our onboarding flow. Feeling nervous.", "That's a vote of confidence. Start by mapping the current flow and where users drop off; share a plan with Rui early."},
			{"where do people usually drop off in fintech onboarding?", "Identity verification and linking a bank account are the usual cliffs."},
		}},
		/* 9 */ {day: 57, turns: [][2]string{
			{"I bought a secondhand road bike, a blue Bianchi, for commuting up the hills.", "Nice choice! Lisbon's hills are tough — check the gearing, and consider an e-assist if the climbs are too much."},
			{"it's heavy but I like it", "A good lock is a must in the city."},
		}},
		/* 10 */ {day: 63, turns: [][2]string{
			{"I started Portuguese lessons twice a week with a tutor called Beatriz. My pronunciation is awful.", "European Portuguese vowels are hard — Beatriz can help you with the reduced vowels. Listening to podcasts helps a lot."},
			{"any podcast recommendations?", "Try 'Practice Portuguese' — it focuses on European Portuguese."},
		}},
		/* 11 */ {day: 70, turns: [][2]string{
			{"what's a good weekly meal prep for someone who runs 3 times a week?", "Batch cook grains, roast vegetables, prepare a protein or two and keep snacks like yogurt and fruit handy."},
			{"easy, thanks", "Happy cooking!"},
		}},
		/* 12 */ {day: 186, turns: [][2]string{
			{"Packing week! I bought a lightweight rain jacket for the trip since it might be typhoon season.", "Smart — also pack a small umbrella, quick-dry clothes and comfortable shoes for temple steps."},
			{"do I need cash in Japan?", "Yes, many smaller places are cash only; carry some yen and a Suica card for transit."},
		}},
		/* 13 */ {day: 193, turns: [][2]string{
			{"Back from Japan! The moss garden at Saihō-ji was the highlight, and Pixel missed us terribly.", "Welcome back! Saihō-ji is magical. I'm glad Pixel is happy to have you home."},
			{"I'm jetlagged, any tips?", "Get morning light, a short walk, and avoid long naps."},
		}},
		/* 14 */ {day: 200, turns: [][2]string{
			{"Pixel had surgery on his front leg this morning, the vet says he'll be fine but needs 6 weeks of rest.", "I'm sorry — that's stressful. Keep him calm, use a cone if he licks the stitches, and short leash walks only."},
		}},
		/* 15 */ {day: 207, turns: [][2]string{
			{"These days I only drink green tea, coffee makes me jittery. Can you suggest a good sencha?", "Look for a first-flush sencha from Shizuoka or Kagoshima; brew it at 70–80°C for about a minute."},
		}},
		/* 16 */ {day: 214, turns: [][2]string{
			{"My birthday is on October 12 and I'm thinking of a small dinner at home for six friends. Menu ideas?", "A Portuguese-style dinner: caldo verde, grilled fish, a big salad, and pastéis de nata for dessert."},
			{"one friend is vegan", "Add a chickpea and spinach stew so everyone has a main."},
		}},
		/* 17 */ {day: 221, turns: [][2]string{
			{"The onboarding redesign shipped on Tuesday! Drop-off at identity verification went down by a third.", "Congratulations — that's a big improvement. Write a short case study while it's fresh."},
		}},
		/* 18 */ {day: 230, turns: [][2]string{
			{"can you explain how compound interest works? simple please", "You earn interest on your interest: each period the interest is added to the balance, so the next interest is computed on a bigger amount."},
		}},
		/* 19 */ {day: 238, turns: [][2]string{
			{"Thinking about adopting a second dog so Pixel has company. Is that a good idea with greyhounds?", "Greyhounds often do well in pairs; consider another calm sighthound and introduce them on neutral ground."},
		}},
	}, questions: []chatQuestion{
		{"What is Maya's dog called?", "single", "dev", []int{1}},
		{"Where does Maya work?", "single", "held", []int{3}},
		{"What could I get Maya as a present she would really enjoy?", "paraphrase", "dev", []int{2}},
		{"Which foods should I avoid when I cook for Maya?", "paraphrase", "held", []int{6}},
		{"What should I offer Maya to drink when she comes over?", "paraphrase", "dev", []int{15}},
		{"Which city did Maya live in when she started her new job?", "multihop", "held", []int{0, 3}},
		{"Who is the manager of the company Maya joined as a designer?", "multihop", "dev", []int{3, 8}},
		{"What happened to the greyhound after the Japan trip?", "multihop", "held", []int{13, 14}},
		{"When did Maya move to Lisbon?", "temporal", "dev", []int{0}},
		{"What did Maya do on April 1?", "temporal", "held", []int{5}},
		{"What did Maya buy the week before her trip to Japan?", "temporal", "dev", []int{12}},
		{"What was Maya up to in early May?", "temporal", "held", []int{10}},
		{"Who is Maya's sister and where is she from?", "opening", "held", []int{4}},
		{"When is Maya's birthday?", "single", "held", []int{16}},
		{"What was the best part of the Kyoto trip?", "single", "dev", []int{13}},
		{"How did the redesign Maya led turn out?", "multihop", "held", []int{8, 17}},
		// Added on 2026-11-25, before any time signal was built, so that
		// one could be tuned on dev (the dev split had no question that
		// names a date or a span of time).
		{"What happened to Maya on September 18?", "temporal", "dev", []int{14}},
		{"What was Maya doing at the end of April?", "temporal", "dev", []int{9}},
	}},

	{project: "li", lang: "zh", sessions: []chatSession{
		/* 0 */ {day: 2, turns: [][2]string{
			{"幫我確認一下這個檔案的格式對不對", "我看了一下，JSON 格式正確，只是最後多了一個逗號，已經幫你刪掉。"},
			{"好的謝謝", "不客氣。"},
		}},
		/* 1 */ {day: 5, turns: [][2]string{
			{"幫我調整一下首頁的按鈕顏色，改成深藍色", "已經把按鈕顏色改成 #1a3d7c，並調整了 hover 的顏色。"},
			{"確認一下手機版也有改到", "手機版用的是同一個樣式，也已經改好了。"},
		}},
		/* 2 */ {day: 9, turns: [][2]string{
			{"跟你說，我下個月要搬到台中了，公司在那邊開了新辦公室。", "恭喜！搬家前記得先處理好租約和地址變更，需要的話我可以幫你列清單。"},
			{"幫我列一下搬家要做的事", "1. 找房子 2. 通知房東 3. 更新戶籍與地址 4. 安排搬家公司 5. 轉移網路和水電。"},
		}},
		/* 3 */ {day: 14, turns: [][2]string{
			{"幫我確認一下 API 的回傳檔案有沒有缺欄位", "少了 created_at 欄位，我已經在序列化的地方補上。"},
			{"謝謝", "不客氣。"},
		}},
		/* 4 */ {day: 20, turns: [][2]string{
			{"我最近開始學打羽毛球，每週三晚上跟同事去球館打兩個小時，手臂好痠。", "羽毛球很好玩！打完記得拉伸肩膀和手腕，剛開始不要打太久。"},
			{"要買什麼球拍比較好", "初學者可以選 4U、平衡點偏中間的球拍，比較好控制。"},
		}},
		/* 5 */ {day: 27, turns: [][2]string{
			{"幫我調整這個檔案的縮排，全部改成兩個空格", "已經把縮排全部改成兩個空格。"},
			{"確認一下沒有改壞東西", "跑過測試，全部通過。"},
		}},
		/* 6 */ {day: 33, opening: "歡迎回來！上次你說你女兒小米下週要開始上幼兒園，希望第一天一切順利。", turns: [][2]string{
			{"幫我寫一封信給房東，說我下個月底要退租", "好的，已經幫你寫好一封正式的退租通知信，包含退租日期和押金歸還的請求。"},
		}},
		/* 7 */ {day: 40, turns: [][2]string{
			{"我對海鮮過敏，尤其是蝦子，聚餐的時候很麻煩。", "了解，聚餐時可以先跟餐廳說明過敏，點餐前確認醬料和湯底有沒有加蝦或蝦米。"},
		}},
		/* 8 */ {day: 47, turns: [][2]string{
			{"幫我確認一下這個檔案的權限設定", "權限是 644，執行檔需要 755，已經幫你調整。"},
			{"好", "已完成。"},
		}},
		/* 9 */ {day: 60, turns: [][2]string{
			{"昨天終於搬完家了，台中的新家離公司走路只要十分鐘。", "太好了！搬家辛苦了，好好休息。附近有什麼想找的店我可以幫你查。"},
		}},
		/* 10 */ {day: 75, turns: [][2]string{
			{"幫我調整一下報表的日期格式", "已經改成 YYYY-MM-DD。"},
		}},
		/* 11 */ {day: 90, turns: [][2]string{
			{"下週要帶家人去花蓮玩三天，幫我排行程", "第一天太魯閣，第二天七星潭和東大門夜市，第三天鯉魚潭後回程。"},
			{"確認一下火車票要多早訂", "普悠瑪和太魯閣號通常要在 28 天前開賣時就訂。"},
		}},
		/* 12 */ {day: 110, turns: [][2]string{
			{"我們公司改用 Notion 管理文件了，以前都是用 Confluence。", "了解，如果需要我可以幫你整理從 Confluence 搬到 Notion 的步驟。"},
		}},
	}, questions: []chatQuestion{
		{"小李打什麼運動？", "single", "held", []int{4}},
		{"送小李什麼禮物比較適合？", "paraphrase", "dev", []int{4}},
		{"請小李吃飯要注意什麼？", "paraphrase", "held", []int{7}},
		{"小李的女兒叫什麼名字？", "opening", "dev", []int{6}},
		{"小李搬到哪個城市？什麼時候搬完的？", "multihop", "held", []int{2, 9}},
		{"小李去花蓮之前一週在做什麼？", "temporal", "held", []int{11}},
		{"公司現在用什麼工具管理文件？", "single", "dev", []int{12}},
		{"小李四月中在忙什麼？", "temporal", "dev", []int{8}}, // added 2026-11-25, as above
	}},

	{project: "kenji", lang: "ja", sessions: []chatSession{
		/* 0 */ {day: 1, turns: [][2]string{
			{"来月から大阪支社に転勤することになりました。引っ越しの準備を手伝ってください。", "転勤おめでとうございます。住民票の異動、賃貸の解約、引っ越し業者の見積もりから始めましょう。"},
			{"ありがとう", "どういたしまして。"},
		}},
		/* 1 */ {day: 15, turns: [][2]string{
			{"最近、週末にサワードウのパン作りを始めました。発酵が難しいです。", "サワードウは温度管理が大事です。25度前後で発酵させると安定しますよ。"},
		}},
		/* 2 */ {day: 30, opening: "おかえりなさい。前回、お母さまの古希のお祝いを京都の料亭でされると伺いました。", turns: [][2]string{
			{"新しいノートパソコンを買いたいのですが、おすすめは？", "用途によりますが、軽さ重視なら 13 インチの軽量モデル、開発用ならメモリ 32GB 以上をおすすめします。"},
		}},
		/* 3 */ {day: 45, turns: [][2]string{
			{"実は卵アレルギーがあるので、外食のときに困ります。", "お店に事前に伝えるのが一番です。つなぎに卵を使う料理も多いので注意してください。"},
		}},
		/* 4 */ {day: 70, turns: [][2]string{
			{"昨日、初めてフルマラソンを完走しました！タイムは 4 時間 12 分でした。", "おめでとうございます！完走は素晴らしいです。数日はしっかり休んでください。"},
		}},
		/* 5 */ {day: 95, turns: [][2]string{
			{"大阪の新しいチームのリーダーは田中さんという人です。厳しいけど優しいです。", "良い上司に恵まれましたね。最初の一か月は期待値をすり合わせるとよいですよ。"},
		}},
	}, questions: []chatQuestion{
		{"健二さんの趣味は何ですか？", "paraphrase", "held", []int{1}},
		{"健二さんと食事するとき、何に気をつけるべき？", "paraphrase", "dev", []int{3}},
		{"お母さまのお祝いはどこでしましたか？", "opening", "held", []int{2}},
		{"健二さんが転勤した先の上司は誰ですか？", "multihop", "held", []int{0, 5}},
		{"健二さんがマラソンを完走したのはいつですか？", "temporal", "dev", []int{4}},
		{"健二さんは5月10日に何をしましたか？", "temporal", "dev", []int{4}}, // added 2026-11-25, as above
	}},

	{project: "sofia", lang: "es", sessions: []chatSession{
		/* 0 */ {day: 3, turns: [][2]string{
			{"Empecé un trabajo nuevo como enfermera en el Hospital La Paz, en el turno de noche. Estoy agotada.", "¡Enhorabuena por el trabajo! Para el turno de noche, intenta dormir siempre a la misma hora y oscurecer bien la habitación."},
		}},
		/* 1 */ {day: 16, turns: [][2]string{
			{"Mi gato Churro se escapó ayer por la ventana y volvió esta mañana todo sucio.", "¡Qué susto! Revisa que no tenga heridas y pon una malla en la ventana."},
		}},
		/* 2 */ {day: 33, turns: [][2]string{
			{"Estoy aprendiendo a tocar el ukelele con vídeos, ya me sé cuatro acordes.", "¡Genial! Con cuatro acordes ya puedes tocar muchísimas canciones."},
		}},
		/* 3 */ {day: 52, opening: "¡Hola de nuevo! La última vez me contaste que tu hermano Diego se casaba en Sevilla en junio.", turns: [][2]string{
			{"¿Qué me pongo para una boda de día en verano?", "Un vestido ligero de colores claros y zapatos cómodos; evita el blanco."},
		}},
		/* 4 */ {day: 80, turns: [][2]string{
			{"Me han pasado al turno de mañana en el hospital, por fin duermo de noche.", "¡Qué buena noticia! Tu cuerpo agradecerá el cambio, dale un par de semanas para adaptarse."},
		}},
	}, questions: []chatQuestion{
		{"¿Cómo se llama el gato de Sofía?", "single", "dev", []int{1}},
		{"¿Qué regalo le haría ilusión a Sofía?", "paraphrase", "held", []int{2}},
		{"¿Dónde se casó el hermano de Sofía?", "opening", "dev", []int{3}},
		{"¿En qué turno trabaja ahora Sofía en el hospital donde empezó?", "multihop", "held", []int{0, 4}},
		{"¿Qué le pasó a Sofía el 17 de marzo?", "temporal", "dev", []int{1}}, // added 2026-11-25, as above
	}},
}

// chatSmallTalk is what people type that asks nothing of memory, short and
// in the languages they write — most real Chinese prompts are under 15
// characters, and open with the same few words as the requests.
var chatSmallTalk = []string{
	"好的謝謝", "謝謝", "好", "確認一下", "幫我看一下", "幫我確認", "嗯嗯", "可以", "繼續", "對", "不用了", "辛苦了", "好的，就這樣",
	"ありがとう", "了解です", "お願いします", "はい", "大丈夫です", "続けて",
	"thanks!", "ok", "sounds good", "great", "sure, go ahead", "lol",
	"gracias", "vale", "perfecto",
}

// chatTasks are requests of a person whose history is mostly requests
// that open the same way: they should bring memory only when a past
// session bears on them (none of these do).
var chatTasks = []string{
	"幫我確認一下這個函式的回傳值", "幫我調整一下標題的字體大小", "確認一下測試有沒有過", "幫我看一下這個錯誤訊息",
	"この関数の戻り値を確認してください", "Add a unit test for the date parser", "Rename this variable to something clearer",
}
