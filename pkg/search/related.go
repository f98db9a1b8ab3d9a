package search

import (
	"sort"
	"strings"

	"github.com/ccmem/ccmem/pkg/lexicon"
)

// The bridge between words a question and its answer do not share: a
// small static vocabulary of related words ("dog" and "greyhound", "gift"
// and "hobby", "bug" and "error", "食事" and "アレルギー"), in English,
// Spanish, Chinese and Japanese. A query term in a group brings the
// group's other words into the search at bridgeWeight of their weight;
// they rank, and count a little toward recall's bar, but they are not the
// query's own words (a hit's Matched share does not count them).
//
// Each line of relatedText is one group. relatedTerms is the same as a
// sorted table of (term, group) pairs, read by bisection: a hook that
// built a map of it on every run would pay more for that than for the
// search (TestRelatedIsCurrent keeps it equal to the text; run it with
// -update after editing the text).
const relatedText = `
dog dogs puppy pet pets greyhound labrador terrier poodle retriever beagle sighthound hound perro perra cachorro mascota 狗狗 小狗 愛犬 爱犬 寵物 宠物 ペット 子犬
cat cats kitten pet pets gato gata gatito mascota 貓咪 猫咪 寵物 宠物 ペット 子猫
name named called nombre llama llamaba 名字 叫做 名前
gift gifts present presents hobby hobbies pastime interest passion enjoy regalo regalos afición pasatiempo ilusión 禮物 礼物 送禮 興趣 兴趣 愛好 爱好 プレゼント 贈り物 趣味
hobby hobbies class lessons ceramics pottery painting knitting gardening afición pasatiempo 興趣 兴趣 愛好 爱好 趣味 習い事
food foods eat eating cook cooking dinner lunch meal meals restaurant allergy allergic avoid comida comer cocinar cena almuerzo restaurante alergia alérgico alérgica 吃飯 吃饭 食物 餐廳 餐厅 過敏 过敏 聚餐 食事 外食 料理 アレルギー
drink drinks coffee tea beer wine juice bebida beber café vino cerveza 飲料 饮料 咖啡 喝茶 飲み物 コーヒー お茶 紅茶
work job company employer office startup hired career colleague trabajo empresa oficina empleo compañero 工作 公司 上班 職場 职场 同事 仕事 会社 職場 就職 転職 同僚
manager boss lead supervisor team jefe jefa equipo 主管 老闆 老板 上司 團隊 团队 上司 リーダー チーム
move moved moving relocate relocated apartment flat mudanza mudarse mudé piso 搬家 搬到 新家 引っ越し 転勤 引越し
city town live lived living neighbourhood neighborhood ciudad vivir barrio 城市 住在 市區 街 住む 地元
family sister brother mother father mom mum dad parents daughter son wife husband partner hermana hermano madre padre hija hijo familia esposa esposo 家人 姐姐 妹妹 哥哥 弟弟 媽媽 妈妈 爸爸 女兒 女儿 兒子 儿子 家族 母親 父親 お母さま お父さま 姉 妹 兄 弟 娘 息子
trip travel travelling traveling vacation holiday flight flights itinerary visit viaje viajar vacaciones vuelo 旅行 旅遊 旅游 出遊 行程 機票 旅 観光
best highlight favourite favorite loved amazing mejor favorito favorita 最棒 最喜歡 最喜欢 一番 最高 ハイライト
run running runner race marathon 10k jog jogging correr carrera maratón 跑步 馬拉松 马拉松 マラソン ランニング 完走
sport sports exercise workout gym fitness badminton tennis climbing swimming yoga deporte ejercicio gimnasio 運動 运动 羽毛球 健身 スポーツ 運動 ジム
sick ill illness doctor hospital surgery vet clinic injury hurt sore enfermo médico hospital cirugía veterinario 生病 醫生 医生 醫院 医院 手術 手术 病院 医者 手術 怪我
music instrument guitar ukulele piano violin sing singing choir música instrumento guitarra ukelele piano cantar 音樂 音乐 吉他 唱歌 音楽 ギター ピアノ
bread baking bake sourdough cake pastry pan hornear repostería 烘焙 麵包 面包 蛋糕 パン作り パン ケーキ 焼く
money bank savings budget interest salary pay paid dinero banco ahorro sueldo 錢 钱 銀行 银行 存款 薪水 お金 銀行 貯金 給料
birthday anniversary party celebration celebrate cumpleaños aniversario fiesta celebrar 生日 派對 慶祝 庆祝 誕生日 パーティー お祝い 古希
wedding married marry bride groom boda casarse casó novia novio 婚禮 婚礼 結婚 結婚式
language lessons tutor class course learn learning teacher idioma clase curso profesor aprender 語言 语言 課程 课程 學習 学习 家教 老師 老师 言語 授業 レッスン 勉強 先生
bike bicycle cycling cyclist bicicleta 腳踏車 自行车 單車 单车 自転車
weather rain rainy umbrella typhoon jacket storm tiempo lluvia paraguas tormenta 天氣 天气 下雨 雨傘 雨伞 颱風 台风 天気 台風
shift schedule night nights morning hours turno horario noche 輪班 轮班 班表 夜班 シフト 夜勤
laptop computer pc notebook macbook ordenador portátil computadora 電腦 电脑 筆電 笔记本 パソコン ノートパソコン
landlord rent lease tenant apartment casero alquiler contrato inquilino 房東 房东 租約 租约 退租 房租 大家 家賃 賃貸
school kindergarten preschool daycare colegio escuela guardería 學校 学校 幼兒園 幼儿园 幼稚園 保育園
kid kids child children baby niño niña niños hijos bebé 小孩 孩子 寶寶 宝宝 子供 子ども 赤ちゃん
bug bugs error errors crash crashed exception failure failed broken issue fail failing fallo excepción 錯誤 错误 報錯 报错 異常 异常 エラー バグ 障害
test tests testing spec specs unit e2e prueba pruebas 測試 测试 單元 单元 テスト
deploy deployed deployment release released ship shipped publish rollout desplegar despliegue publicar lanzamiento 部署 發布 发布 上線 上线 デプロイ リリース
database db postgres postgresql mysql sqlite sql schema migration migrations datos 資料庫 数据库 遷移 迁移 データベース マイグレーション
auth authentication authorization login logins signin password passwords token tokens oauth sso autenticación contraseña 登入 登录 認證 认证 密碼 密码 ログイン 認証 パスワード
config configuration settings setting env environment configuración ajustes 設定 设置 配置 環境 环境 設定 環境
docs documentation readme guide manual documentación 文件 文档 說明 说明 ドキュメント 説明書
slow performance latency speed fast faster perf profiling lento rendimiento velocidad 效能 性能 速度 延遲 延迟 遅い 速度
ci pipeline pipelines workflow workflows actions build builds 建置 构建 流水線 流水线 ビルド パイプライン
style styles css color colour colors colours theme font fonts estilo estilos colores fuente 樣式 样式 顏色 颜色 字體 字体 スタイル 色 フォント
format formatting formatter indent indentation lint linter prettier gofmt formato sangría 格式 縮排 缩进 フォーマット インデント
api apis endpoint endpoints route routes request response rest graphql 介面 接口 端點 端点 エンドポイント
file files folder folders directory path archivo archivos carpeta 檔案 文件 資料夾 文件夹 目錄 目录 ファイル フォルダ
cache caching cached redis memcached caché 快取 缓存 キャッシュ
kubernetes k8s cluster pod pods container containers docker helm contenedor 容器 叢集 集群 コンテナ クラスタ
permission permissions chmod access acl permiso permisos 權限 权限 権限
date dates time timestamp timestamps timezone fecha fechas hora 日期 時間 时间 時區 时区 日付 時刻
report reports dashboard chart charts informe informes gráfico 報表 报表 圖表 图表 レポート グラフ
queue queues job jobs worker workers background task tasks cola tarea 佇列 队列 任務 任务 キュー ジョブ
email emails mail notification notifications notify correo notificación 郵件 邮件 通知 メール 通知
payment payments pay billing invoice invoices checkout stripe refund pago pagos factura facturas 付款 支付 發票 发票 退款 支払い 請求書 決済
search searching find lookup query queries index búsqueda buscar 搜尋 搜索 查詢 查询 検索
user users account accounts customer customers usuario usuarios cuenta cliente 使用者 用户 帳號 账号 客戶 客户 ユーザー アカウント 顧客
onboarding signup registration register registro alta 註冊 注册 新手 登録 オンボーディング
design designer ux ui mockup mockups figma wireframe diseño diseñador 設計 设计 介面 デザイン デザイナー
meeting meetings standup call calls sync reunión llamada 會議 会议 開會 开会 会議 ミーティング 打ち合わせ
`

// bridgeWeight is how much of its weight a related word brings to a
// ranking, bridgeEvidence how much of it counts toward recall's bar, and
// maxBridged the most related words one query brings (the rarest first:
// a hook's budget).
const (
	bridgeWeight   = 0.25
	bridgeEvidence = 0.5
	maxBridged     = 16
)

// relatedEntry is a term of relatedText and the group it is in.
type relatedEntry struct {
	term  string
	group uint16
}

// relatedGroups reads relatedText: each group's terms, as Terms gives
// them (a word of several terms gives them all).
func relatedGroups() [][]string {
	var groups [][]string
	for _, line := range strings.Split(strings.TrimSpace(relatedText), "\n") {
		var g []string
		for _, w := range strings.Fields(line) {
			g = append(g, Terms(w)...)
		}
		groups = append(groups, dedupe(g))
	}
	return groups
}

// related are the words related to t, without t: the other terms of
// every group of the hand-written table t is in or, when the table has
// none, what WordNet relates to it (lexicon.Related). Off switches
// either source off, to measure it (make recall).
func related(t string, off Signal) []string {
	var out []string
	if off&SignalTable == 0 {
		out = relatedInTable(t)
	}
	if off&SignalWordNet == 0 && len(out) == 0 {
		for _, r := range lexicon.Related(t) {
			if r != t && !contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// relatedInTable are the words the hand-written table relates to t.
func relatedInTable(t string) []string {
	i := sort.Search(len(relatedTerms), func(i int) bool { return relatedTerms[i].term >= t })
	var out []string
	for ; i < len(relatedTerms) && relatedTerms[i].term == t; i++ {
		for _, r := range relatedByGroup[relatedTerms[i].group] {
			if r != t && !contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}
