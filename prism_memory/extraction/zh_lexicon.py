"""Chinese word classes for the clause reader: surnames, kinship and role nouns, attribute nouns.

They are closed grammatical classes of Mandarin (the common surnames, the kinship terms, the
nouns that name a property of a person), not phrases of any evaluation set. ``chinese.py``,
``zh_names.py``, ``zh_attributes.py`` and ``change.py`` build their patterns from them.
"""

from __future__ import annotations

__all__ = [
    "ZH_ATTRIBUTES",
    "ZH_ATTRIBUTE_LABELS",
    "ZH_COMPOUND_SURNAMES",
    "ZH_DIETS",
    "ZH_DISCOURSE_NOUNS",
    "ZH_JOB_SUFFIX",
    "ZH_MEASURE_UNITS",
    "ZH_PETS",
    "ZH_RELATIONS",
    "ZH_ROLES",
    "ZH_SURNAMES",
]

# the ~150 commonest single-character surnames (over 85% of the population) and the compound ones
ZH_SURNAMES = (
    "张王李赵刘陈杨黄吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程"
    "苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵"
    "万钱严武戴莫孔向汤覃常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳"
    "甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶"
    "解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵"
    "苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝"
)
ZH_COMPOUND_SURNAMES = "欧阳|司马|诸葛|上官|东方|皇甫|尉迟|公孙|慕容|令狐|长孙|宇文|司徒|夏侯|端木"

# kinship and social roles a person can have towards the speaker; a modifier may precede them
# ("大学室友", "前同事", "远房表哥")
ZH_ROLES = (
    "老公|老婆|丈夫|妻子|爱人|媳妇|太太|先生|老伴|男朋友|女朋友|男友|女友|对象|未婚夫|未婚妻|前夫|前妻|"
    "爸爸|妈妈|父亲|母亲|老爸|老妈|儿子|女儿|孩子|大儿子|小儿子|大女儿|小女儿|"
    "哥哥|姐姐|弟弟|妹妹|大哥|二哥|大姐|二姐|"
    "爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|婶婶|伯伯|伯父|伯母|阿姨|舅舅|舅妈|姑姑|姑父|姨妈|姨父|"
    "表哥|表姐|表弟|表妹|堂哥|堂姐|堂弟|堂妹|岳父|岳母|公公|婆婆|侄子|侄女|外甥|外甥女|孙子|孙女|"
    "嫂子|弟媳|姐夫|妹夫|亲戚|"
    "朋友|好朋友|好友|闺蜜|发小|哥们|兄弟|同事|同学|室友|舍友|邻居|老乡|网友|队友|搭档|合伙人|"
    "老板|领导|上司|上级|主管|经理|下属|手下|助理|秘书|客户|老师|导师|学生|徒弟|师傅|师父|"
    "医生|教练|房东|租客"
)

# nouns that name a property of a person -> the slot they fill (a later value replaces it)
ZH_ATTRIBUTES = {
    "年龄": "age",
    "年纪": "age",
    "岁数": "age",
    "身高": "height",
    "个子": "height",
    "体重": "weight",
    "生日": "birthday",
    "出生日期": "birthday",
    "职业": "occupation",
    "工作": "occupation",
    "职位": "job title",
    "岗位": "job title",
    "血型": "blood type",
    "星座": "star sign",
    "属相": "zodiac animal",
    "生肖": "zodiac animal",
    "专业": "major",
    "学历": "education",
    "母校": "school",
    "毕业院校": "school",
    "学校": "school",
    "爱好": "hobby",
    "兴趣爱好": "hobby",
    "老家": "hometown",
    "家乡": "hometown",
    "籍贯": "hometown",
    "工作单位": "workplace",
    "单位": "workplace",
    "公司": "workplace",
    "性格": "personality",
    "民族": "ethnicity",
    "英文名": "preferred name",
    "名字": "name",
    "姓名": "name",
    "小名": "nickname",
    "外号": "nickname",
    "工资": "salary",
    "月薪": "salary",
    "年薪": "salary",
    "收入": "income",
    "房租": "rent",
    "预算": "budget",
    "鞋码": "shoe size",
    "尺码": "clothing size",
}
# how a slot is named when its record is written in Chinese
ZH_ATTRIBUTE_LABELS = {
    "age": "年龄",
    "height": "身高",
    "weight": "体重",
    "birthday": "生日",
    "occupation": "职业",
    "job title": "职位",
    "blood type": "血型",
    "star sign": "星座",
    "zodiac animal": "属相",
    "major": "专业",
    "education": "学业",
    "school": "毕业院校",
    "hobby": "爱好",
    "hometown": "老家",
    "workplace": "工作单位",
    "personality": "性格",
    "ethnicity": "民族",
    "preferred name": "英文名",
    "name": "名字",
    "nickname": "小名",
    "salary": "工资",
    "income": "收入",
    "rent": "房租",
    "shoe size": "鞋码",
    "clothing size": "尺码",
    "home city": "住址",
    "commute": "通勤",
    "budget": "预算",
    "diet": "饮食",
    "pet": "宠物",
}
# nouns that introduce what the speaker means or feels now, not a property ("我的意思是...",
# "我的心情是复杂的")
ZH_DISCOURSE_NOUNS = (
    "意思|问题|想法|建议|看法|理由|原因|目的|感觉|答案|打算|计划|愿望|任务|重点|关键|结论|办法|"
    "情况|经验|观点|回答|选择|要求|条件|麻烦|困难|心情|感受|心态|状态|体会|印象"
)
# units that make a number a measure rather than money
ZH_MEASURE_UNITS = "岁|公斤|千克|斤|kg|KG|cm|CM|厘米|公分|米|m|分钟|小时|天|年|个月|周|码|号|度|公里|km|层|平米|平方米|平"

# relatives, pets, job-noun endings and diets, read by ``chinese.py`` and ``change.py``
ZH_RELATIONS = (
    "老公|老婆|丈夫|妻子|爱人|男朋友|女朋友|男友|女友|未婚夫|未婚妻|爸爸|妈妈|父亲|母亲|"
    "儿子|女儿|孩子|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|姑姑|"
    "表哥|表姐|表弟|表妹|堂哥|堂姐|堂弟|堂妹|朋友|好朋友|闺蜜|同事|老板|领导|上司|室友|邻居|"
    "同学|老师|师傅|岳父|岳母|公公|婆婆|侄子|侄女|外甥|外甥女|孙子|孙女"
)
ZH_PETS = "狗|猫|小狗|小猫|狗狗|猫咪|兔子|鹦鹉|仓鼠|金鱼|乌龟|柯基|柴犬|金毛|泰迪|哈士奇|拉布拉多|布偶|英短|橘猫"
ZH_JOB_SUFFIX = "师|员|生|家|工|长|手|医|者|警|官|匠|夫|士|商|总|农|记者|主播|博主"
ZH_DIETS = {"吃素": "素食", "素食": "素食", "吃全素": "全素", "纯素": "全素", "吃斋": "素食"}
