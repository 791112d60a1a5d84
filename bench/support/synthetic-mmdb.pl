#!/usr/bin/perl
# Invented IP databases of a realistic size, in the schemas of the deployer's own sources
# (functions/lib/ip/sources.ts), for `npm run bench -- ip-sources` (bench/ip-sources.ts): no real
# MaxMind or IPinfo file is at hand offline, and none may be downloaded for a benchmark.
#
#   perl bench/support/synthetic-mmdb.pl OUT_DIR [V4_NETWORKS [V6_NETWORKS [SEED]]]
#
# writes into OUT_DIR (defaults: 300000 IPv4 networks, 30000 IPv6 networks, seed 1):
#   GeoIP2-City-Synthetic.mmdb    GeoIP2 City schema: database type GeoIP2-City, record size 28,
#                                 names in MaxMind's eight languages for continents and countries
#   GeoLite2-ASN-Synthetic.mmdb   GeoLite2 ASN schema: GeoLite2-ASN, record size 24
#   ipinfo-lite-Synthetic.mmdb    IPinfo Lite schema: "ipinfo lite.mmdb", record size 32
# and prints one JSON line: the counts, the IPv4 coverage and the prefix lengths used.
#
# All three hold the same networks:
#   IPv4  the public space (1.0.0.0-223.255.255.255 without the special-purpose ranges of
#         functions/lib/ip/special-ranges.ts) cut into blocks by random halving (a block picked at
#         random is split until there are enough), from /24 up to /12; one block in ten is left out
#         as unallocated space, the rest are the networks
#   IPv6  /32 to /48 networks at random gaps over 2001:400:: to 2fff:ffff:: (without 2001:db8::/32
#         and 6to4's 2002::/16, which the writer aliases to IPv4), so covering a tiny share of it
# Consecutive networks mostly belong to the same AS (runs), and each network is placed in a city
# of its AS's country (a few elsewhere; some country-only, some anycast with only a registered
# country). The records are invented: about 4,000 cities with made-up names in real subdivisions
# (ISO 3166-2 codes, coordinates near the real ones, real IANA zones) of 33 countries, one to three
# postal codes each in the country's format (some records without), accuracy radii of 1-1000 km;
# 6,000 ASes with made-up organisations and domains. Nothing in them is MaxMind's or IPinfo's data.
#
# Deterministic: Perl's own drand48 seeded with SEED, arrays only (no hash order), fixed build
# epoch, and the writer sorts map keys. Needs MaxMind::DB::Writer (Debian: libmaxmind-db-writer-perl).
use strict;
use warnings;
use utf8;

use File::Spec;
use MaxMind::DB::Writer::Tree;
use MaxMind::DB::Writer::Util qw( key_for_data );

my ( $OUT, $V4_NETWORKS, $V6_NETWORKS, $SEED ) = @ARGV;
die "usage: $0 OUT_DIR [V4_NETWORKS [V6_NETWORKS [SEED]]]\n" unless defined $OUT && -d $OUT;
$V4_NETWORKS //= 300_000;
$V6_NETWORKS //= 30_000;
$SEED        //= 1;
srand($SEED);

my $EPOCH     = 1767225600;    # 2026-01-01 00:00 UTC
my $CITIES    = 4_000;
my $ASES      = 6_000;
my $V4_UNUSED = 0.10;          # share of IPv4 blocks left out as unallocated
my @LANGUAGES = qw(de en es fr ja pt-BR ru zh-CN);

sub pick { return $_[ int rand @_ ] }

# [value, weight] pairs.
sub weighted {
    my $total = 0;
    $total += $_->[1] for @_;
    my $r = rand $total;
    for (@_) {
        return $_->[0] if ( $r -= $_->[1] ) < 0;
    }
    return $_[-1][0];
}

# --- Places -------------------------------------------------------------------------------------

sub names8 { my %n; @n{@LANGUAGES} = @_; return \%n }

my %CONTINENT_DATA = (
    AF => [ 6255146, names8( 'Afrika', 'Africa', 'África', 'Afrique', 'アフリカ', 'África', 'Африка', '非洲' ) ],
    AS => [ 6255147, names8( 'Asien', 'Asia', 'Asia', 'Asie', 'アジア', 'Ásia', 'Азия', '亚洲' ) ],
    EU => [ 6255148, names8( 'Europa', 'Europe', 'Europa', 'Europe', 'ヨーロッパ', 'Europa', 'Европа', '欧洲' ) ],
    NA => [
        6255149,
        names8(
            'Nordamerika', 'North America', 'Norteamérica', 'Amérique du Nord',
            '北アメリカ', 'América do Norte', 'Северная Америка', '北美洲'
        )
    ],
    OC => [ 6255151, names8( 'Ozeanien', 'Oceania', 'Oceanía', 'Océanie', 'オセアニア', 'Oceania', 'Океания', '大洋洲' ) ],
    SA => [
        6255150,
        names8(
            'Südamerika', 'South America', 'Sudamérica', 'Amérique du Sud',
            '南アメリカ', 'América do Sul', 'Южная Америка', '南美洲'
        )
    ],
);

# code, continent, EU member, share of networks, postal format (# digit, A letter; '' none), geoname
# id, names (de en es fr ja pt-BR ru zh-CN), subdivisions [ISO 3166-2 suffix, name, lat, lon, zone,
# spread of the cities in degrees].
my @COUNTRIES = (
    [   'US', 'NA', 0, 25, '#####', 6252001,
        [ 'Vereinigte Staaten', 'United States', 'Estados Unidos', 'États Unis', 'アメリカ', 'EUA', 'США', '美国' ],
        [   [ 'CA', 'California', 36.8, -119.4, 'America/Los_Angeles', 2.5 ],
            [ 'NY', 'New York',   42.9, -75.5,  'America/New_York',    1.5 ],
            [ 'TX', 'Texas',      31.0, -99.0,  'America/Chicago',     3.0 ],
            [ 'FL', 'Florida',    28.0, -81.7,  'America/New_York',    1.5 ],
            [ 'IL', 'Illinois',   40.0, -89.2,  'America/Chicago',     1.5 ],
            [ 'WA', 'Washington', 47.4, -120.5, 'America/Los_Angeles', 1.5 ],
            [ 'VA', 'Virginia',   37.5, -78.8,  'America/New_York',    1.2 ],
            [ 'GA', 'Georgia',    32.7, -83.4,  'America/New_York',    1.2 ],
            [ 'CO', 'Colorado',   39.0, -105.5, 'America/Denver',      1.5 ],
            [ 'AZ', 'Arizona',    34.2, -111.6, 'America/Phoenix',     1.5 ],
        ]
    ],
    [   'CA', 'NA', 0, 3, 'A#A', 6251999,
        [ 'Kanada', 'Canada', 'Canadá', 'Canada', 'カナダ', 'Canadá', 'Канада', '加拿大' ],
        [   [ 'ON', 'Ontario',          44.0, -79.5,  'America/Toronto',   1.5 ],
            [ 'QC', 'Quebec',           46.8, -71.2,  'America/Toronto',   1.5 ],
            [ 'BC', 'British Columbia', 49.3, -123.0, 'America/Vancouver', 1.0 ],
            [ 'AB', 'Alberta',          51.0, -114.0, 'America/Edmonton',  1.5 ],
        ]
    ],
    [   'MX', 'NA', 0, 1, '#####', 3996063,
        [ 'Mexiko', 'Mexico', 'México', 'Mexique', 'メキシコ', 'México', 'Мексика', '墨西哥' ],
        [   [ 'CMX', 'Mexico City', 19.4, -99.1,  'America/Mexico_City', 0.2 ],
            [ 'JAL', 'Jalisco',     20.7, -103.3, 'America/Mexico_City', 1.0 ],
            [ 'NLE', 'Nuevo León',  25.7, -100.3, 'America/Monterrey',   1.0 ],
        ]
    ],
    [   'BR', 'SA', 0, 4, '#####-###', 3469034,
        [ 'Brasilien', 'Brazil', 'Brasil', 'Brésil', 'ブラジル連邦共和国', 'Brasil', 'Бразилия', '巴西' ],
        [   [ 'SP', 'São Paulo',         -23.5, -46.6, 'America/Sao_Paulo', 1.5 ],
            [ 'RJ', 'Rio de Janeiro',    -22.9, -43.2, 'America/Sao_Paulo', 0.8 ],
            [ 'MG', 'Minas Gerais',      -19.9, -43.9, 'America/Sao_Paulo', 2.0 ],
            [ 'RS', 'Rio Grande do Sul', -30.0, -51.2, 'America/Sao_Paulo', 1.5 ],
        ]
    ],
    [   'AR', 'SA', 0, 1, 'A####AAA', 3865483,
        [ 'Argentinien', 'Argentina', 'Argentina', 'Argentine', 'アルゼンチン共和国', 'Argentina', 'Аргентина', '阿根廷' ],
        [   [ 'C', 'Buenos Aires F.D.', -34.6, -58.4, 'America/Argentina/Buenos_Aires', 0.1 ],
            [ 'B', 'Buenos Aires',      -36.0, -60.0, 'America/Argentina/Buenos_Aires', 1.5 ],
            [ 'X', 'Córdoba',           -31.4, -64.2, 'America/Argentina/Cordoba',      1.0 ],
        ]
    ],
    [   'GB', 'EU', 0, 5, 'AA#', 2635167,
        [ 'Vereinigtes Königreich', 'United Kingdom', 'Reino Unido', 'Royaume-Uni', 'イギリス', 'Reino Unido', 'Великобритания', '英国' ],
        [   [ 'ENG', 'England',          52.5, -1.5, 'Europe/London', 1.5 ],
            [ 'SCT', 'Scotland',         56.5, -4.0, 'Europe/London', 1.0 ],
            [ 'WLS', 'Wales',            52.3, -3.7, 'Europe/London', 0.6 ],
            [ 'NIR', 'Northern Ireland', 54.6, -6.7, 'Europe/London', 0.5 ],
        ]
    ],
    [   'DE', 'EU', 1, 6, '#####', 2921044,
        [ 'Deutschland', 'Germany', 'Alemania', 'Allemagne', 'ドイツ連邦共和国', 'Alemanha', 'Германия', '德国' ],
        [   [ 'BY', 'Bavaria',                48.8,  11.5, 'Europe/Berlin', 1.2 ],
            [ 'BE', 'Berlin',                 52.52, 13.4, 'Europe/Berlin', 0.15 ],
            [ 'HE', 'Hesse',                  50.6,  9.0,  'Europe/Berlin', 0.8 ],
            [ 'NW', 'North Rhine-Westphalia', 51.5,  7.5,  'Europe/Berlin', 1.0 ],
            [ 'HH', 'Hamburg',                53.55, 10.0, 'Europe/Berlin', 0.1 ],
            [ 'BW', 'Baden-Württemberg',      48.6,  9.0,  'Europe/Berlin', 0.8 ],
        ]
    ],
    [   'FR', 'EU', 1, 4, '#####', 3017382,
        [ 'Frankreich', 'France', 'Francia', 'France', 'フランス共和国', 'França', 'Франция', '法国' ],
        [   [ 'IDF', 'Île-de-France',              48.85, 2.35, 'Europe/Paris', 0.5 ],
            [ 'ARA', 'Auvergne-Rhône-Alpes',       45.7,  4.8,  'Europe/Paris', 1.0 ],
            [ 'PAC', "Provence-Alpes-Côte d'Azur", 43.5,  5.9,  'Europe/Paris', 0.6 ],
            [ 'OCC', 'Occitanie',                  43.6,  1.4,  'Europe/Paris', 1.0 ],
            [ 'NAQ', 'Nouvelle-Aquitaine',         44.8,  -0.6, 'Europe/Paris', 1.0 ],
        ]
    ],
    [   'NL', 'EU', 1, 3, '####', 2750405,
        [ 'Niederlande', 'Netherlands', 'Países Bajos', 'Pays-Bas', 'オランダ王国', 'Holanda', 'Нидерланды', '荷兰' ],
        [   [ 'NH', 'North Holland', 52.5, 4.9, 'Europe/Amsterdam', 0.3 ],
            [ 'ZH', 'South Holland', 52.0, 4.4, 'Europe/Amsterdam', 0.3 ],
            [ 'UT', 'Utrecht',       52.1, 5.1, 'Europe/Amsterdam', 0.2 ],
        ]
    ],
    [   'ES', 'EU', 1, 2, '#####', 2510769,
        [ 'Spanien', 'Spain', 'España', 'Espagne', 'スペイン', 'Espanha', 'Испания', '西班牙' ],
        [   [ 'MD', 'Madrid',    40.4, -3.7, 'Europe/Madrid', 0.5 ],
            [ 'CT', 'Catalonia', 41.4, 2.2,  'Europe/Madrid', 0.6 ],
            [ 'AN', 'Andalusia', 37.4, -5.0, 'Europe/Madrid', 1.2 ],
        ]
    ],
    [   'IT', 'EU', 1, 3, '#####', 3175395,
        [ 'Italien', 'Italy', 'Italia', 'Italie', 'イタリア共和国', 'Itália', 'Италия', '意大利' ],
        [   [ '25', 'Lombardy', 45.5,  9.2,   'Europe/Rome', 0.6 ],
            [ '62', 'Lazio',    41.9,  12.5,  'Europe/Rome', 0.6 ],
            [ '72', 'Campania', 40.85, 14.25, 'Europe/Rome', 0.5 ],
        ]
    ],
    [   'PL', 'EU', 1, 2, '##-###', 798544,
        [ 'Polen', 'Poland', 'Polonia', 'Pologne', 'ポーランド共和国', 'Polônia', 'Польша', '波兰' ],
        [   [ '14', 'Mazovia',      52.2,  21.0,  'Europe/Warsaw', 0.8 ],
            [ '12', 'Lesser Poland', 50.06, 19.94, 'Europe/Warsaw', 0.5 ],
            [ '02', 'Lower Silesia', 51.1,  17.0,  'Europe/Warsaw', 0.6 ],
        ]
    ],
    [   'SE', 'EU', 1, 1, '### ##', 2661886,
        [ 'Schweden', 'Sweden', 'Suecia', 'Suède', 'スウェーデン王国', 'Suécia', 'Швеция', '瑞典' ],
        [   [ 'AB', 'Stockholm County',  59.33, 18.06, 'Europe/Stockholm', 0.5 ],
            [ 'O',  'Västra Götaland',   57.7,  11.97, 'Europe/Stockholm', 0.6 ],
            [ 'M',  'Skåne County',      55.6,  13.0,  'Europe/Stockholm', 0.4 ],
        ]
    ],
    [   'IE', 'EU', 1, 1, 'A##', 2963597,
        [ 'Irland', 'Ireland', 'Irlanda', 'Irlande', 'アイルランド', 'Irlanda', 'Ирландия', '爱尔兰' ],
        [   [ 'D',  'Dublin', 53.35, -6.26, 'Europe/Dublin', 0.2 ],
            [ 'CO', 'Cork',   51.9,  -8.47, 'Europe/Dublin', 0.4 ],
            [ 'G',  'Galway', 53.27, -9.05, 'Europe/Dublin', 0.3 ],
        ]
    ],
    [   'CH', 'EU', 0, 1, '####', 2658434,
        [ 'Schweiz', 'Switzerland', 'Suiza', 'Suisse', 'スイス連邦', 'Suíça', 'Швейцария', '瑞士' ],
        [   [ 'ZH', 'Zurich', 47.37, 8.54, 'Europe/Zurich', 0.2 ],
            [ 'GE', 'Geneva', 46.2,  6.14, 'Europe/Zurich', 0.1 ],
        ]
    ],
    [   'UA', 'EU', 0, 1, '#####', 690791,
        [ 'Ukraine', 'Ukraine', 'Ucrania', 'Ukraine', 'ウクライナ共和国', 'Ucrânia', 'Украина', '乌克兰' ],
        [   [ '30', 'Kyiv City', 50.45, 30.52, 'Europe/Kyiv', 0.15 ],
            [ '46', 'Lviv',      49.84, 24.03, 'Europe/Kyiv', 0.5 ],
        ]
    ],
    [   'RU', 'EU', 0, 3, '######', 2017370,
        [ 'Russland', 'Russia', 'Rusia', 'Russie', 'ロシア', 'Rússia', 'Россия', '俄罗斯' ],
        [   [ 'MOW', 'Moscow',           55.75, 37.6, 'Europe/Moscow',    0.3 ],
            [ 'SPE', 'St.-Petersburg',   59.94, 30.3, 'Europe/Moscow',    0.2 ],
            [ 'NVS', 'Novosibirsk Oblast', 55.0, 82.9, 'Asia/Novosibirsk', 1.0 ],
        ]
    ],
    [   'TR', 'AS', 0, 1, '#####', 298795,
        [ 'Türkei', 'Turkey', 'Turquía', 'Turquie', 'トルコ共和国', 'Turquia', 'Турция', '土耳其' ],
        [   [ '34', 'Istanbul', 41.0,  28.97, 'Europe/Istanbul', 0.4 ],
            [ '06', 'Ankara',   39.93, 32.86, 'Europe/Istanbul', 0.6 ],
        ]
    ],
    [   'IN', 'AS', 0, 4, '######', 1269750,
        [ 'Indien', 'India', 'India', 'Inde', 'インド', 'Índia', 'Индия', '印度' ],
        [   [ 'MH', 'Maharashtra', 19.07, 72.88, 'Asia/Kolkata', 1.5 ],
            [ 'KA', 'Karnataka',   12.97, 77.59, 'Asia/Kolkata', 1.2 ],
            [ 'DL', 'Delhi',       28.61, 77.21, 'Asia/Kolkata', 0.2 ],
            [ 'TN', 'Tamil Nadu',  13.08, 80.27, 'Asia/Kolkata', 1.2 ],
        ]
    ],
    [   'CN', 'AS', 0, 8, '######', 1814991,
        [ 'China', 'China', 'China', 'Chine', '中国', 'China', 'Китай', '中国' ],
        [   [ 'BJ', 'Beijing',   39.9,  116.4,  'Asia/Shanghai', 0.4 ],
            [ 'SH', 'Shanghai',  31.23, 121.47, 'Asia/Shanghai', 0.3 ],
            [ 'GD', 'Guangdong', 23.13, 113.26, 'Asia/Shanghai', 1.5 ],
            [ 'ZJ', 'Zhejiang',  30.27, 120.15, 'Asia/Shanghai', 1.0 ],
        ]
    ],
    [   'JP', 'AS', 0, 5, '###-####', 1861060,
        [ 'Japan', 'Japan', 'Japón', 'Japon', '日本', 'Japão', 'Япония', '日本' ],
        [   [ '13', 'Tokyo',    35.69, 139.69, 'Asia/Tokyo', 0.3 ],
            [ '27', 'Osaka',    34.69, 135.5,  'Asia/Tokyo', 0.3 ],
            [ '23', 'Aichi',    35.18, 136.9,  'Asia/Tokyo', 0.4 ],
            [ '01', 'Hokkaido', 43.06, 141.35, 'Asia/Tokyo', 1.5 ],
        ]
    ],
    [   'KR', 'AS', 0, 3, '#####', 1835841,
        [ 'Südkorea', 'South Korea', 'Corea del Sur', 'Corée du Sud', '大韓民国', 'Coreia do Sul', 'Республика Корея', '韩国' ],
        [   [ '11', 'Seoul', 37.57, 126.98, 'Asia/Seoul', 0.2 ],
            [ '26', 'Busan', 35.18, 129.08, 'Asia/Seoul', 0.2 ],
        ]
    ],
    [   'SG', 'AS', 0, 1, '######', 1880251,
        [ 'Singapur', 'Singapore', 'Singapur', 'Singapour', 'シンガポール', 'Singapura', 'Сингапур', '新加坡' ],
        [ [ '01', 'Central Singapore', 1.29, 103.85, 'Asia/Singapore', 0.05 ] ]
    ],
    [   'ID', 'AS', 0, 1, '#####', 1643084,
        [ 'Indonesien', 'Indonesia', 'Indonesia', 'Indonésie', 'インドネシア共和国', 'Indonésia', 'Индонезия', '印度尼西亚' ],
        [   [ 'JK', 'Jakarta',   -6.2,  106.85, 'Asia/Jakarta', 0.2 ],
            [ 'JI', 'East Java', -7.25, 112.75, 'Asia/Jakarta', 0.8 ],
        ]
    ],
    [   'VN', 'AS', 0, 1, '######', 1562822,
        [ 'Vietnam', 'Vietnam', 'Vietnam', 'Vietnam', 'ベトナム', 'Vietnã', 'Вьетнам', '越南' ],
        [   [ 'HN', 'Hanoi',            21.03, 105.85, 'Asia/Bangkok',     0.3 ],
            [ 'SG', 'Ho Chi Minh City', 10.8,  106.65, 'Asia/Ho_Chi_Minh', 0.3 ],
        ]
    ],
    [   'AE', 'AS', 0, 1, '', 290557,
        [   'Vereinigte Arabische Emirate', 'United Arab Emirates', 'Emiratos Árabes Unidos', 'Émirats arabes unis',
            'アラブ首長国連邦', 'Emirados Árabes Unidos', 'ОАЭ', '阿拉伯联合酋长国'
        ],
        [ [ 'DU', 'Dubai', 25.2, 55.27, 'Asia/Dubai', 0.2 ], [ 'AZ', 'Abu Dhabi', 24.45, 54.38, 'Asia/Dubai', 0.4 ] ]
    ],
    [   'SA', 'AS', 0, 1, '#####', 102358,
        [ 'Saudi-Arabien', 'Saudi Arabia', 'Arabia Saudí', 'Arabie saoudite', 'サウジアラビア', 'Arábia Saudita', 'Саудовская Аравия', '沙特阿拉伯' ],
        [ [ '01', 'Riyadh Region', 24.71, 46.68, 'Asia/Riyadh', 1.0 ], [ '02', 'Mecca Region', 21.49, 39.19, 'Asia/Riyadh', 1.0 ] ]
    ],
    [   'AU', 'OC', 0, 2, '####', 2077456,
        [ 'Australien', 'Australia', 'Australia', 'Australie', 'オーストラリア', 'Austrália', 'Австралия', '澳大利亚' ],
        [   [ 'NSW', 'New South Wales',   -33.87, 151.2,  'Australia/Sydney',    1.0 ],
            [ 'VIC', 'Victoria',          -37.81, 144.96, 'Australia/Melbourne', 0.8 ],
            [ 'QLD', 'Queensland',        -27.47, 153.03, 'Australia/Brisbane',  1.0 ],
            [ 'WA',  'Western Australia', -31.95, 115.86, 'Australia/Perth',     0.6 ],
        ]
    ],
    [   'NZ', 'OC', 0, 1, '####', 2186224,
        [ 'Neuseeland', 'New Zealand', 'Nueva Zelanda', 'Nouvelle-Zélande', 'ニュージーランド', 'Nova Zelândia', 'Новая Зеландия', '新西兰' ],
        [   [ 'AUK', 'Auckland',   -36.85, 174.76, 'Pacific/Auckland', 0.3 ],
            [ 'WGN', 'Wellington', -41.29, 174.78, 'Pacific/Auckland', 0.3 ],
        ]
    ],
    [   'ZA', 'AF', 0, 1, '####', 953987,
        [ 'Südafrika', 'South Africa', 'Sudáfrica', 'Afrique du Sud', '南アフリカ', 'África do Sul', 'ЮАР', '南非' ],
        [   [ 'GP', 'Gauteng',      -26.2,  28.05, 'Africa/Johannesburg', 0.5 ],
            [ 'WC', 'Western Cape', -33.92, 18.42, 'Africa/Johannesburg', 0.8 ],
        ]
    ],
    [   'NG', 'AF', 0, 1, '', 2328926,
        [ 'Nigeria', 'Nigeria', 'Nigeria', 'Nigeria', 'ナイジェリア連邦共和国', 'Nigéria', 'Нигерия', '尼日利亚' ],
        [ [ 'LA', 'Lagos', 6.52, 3.38, 'Africa/Lagos', 0.3 ], [ 'FC', 'FCT', 9.06, 7.49, 'Africa/Lagos', 0.3 ] ]
    ],
    [   'EG', 'AF', 0, 1, '#####', 357994,
        [ 'Ägypten', 'Egypt', 'Egipto', 'Égypte', 'エジプト・アラブ共和国', 'Egito', 'Египет', '埃及' ],
        [ [ 'C', 'Cairo Governorate', 30.04, 31.24, 'Africa/Cairo', 0.3 ], [ 'ALX', 'Alexandria', 31.2, 29.92, 'Africa/Cairo', 0.3 ] ]
    ],
    [   'KE', 'AF', 0, 1, '', 192950,
        [ 'Kenia', 'Kenya', 'Kenia', 'Kenya', 'ケニア共和国', 'Quênia', 'Кения', '肯尼亚' ],
        [ [ '30', 'Nairobi County', -1.29, 36.82, 'Africa/Nairobi', 0.2 ] ]
    ],
);

my @SYLLABLES = qw(ka lo ri an ber ton vel mar sa den ho lin gar us mi ra ne tor val bel ro sen dor le cas
    mon tre al vik sol fen bra qui dal ova et ur pel gan ost);
my @CITY_SUFFIXES = ( ('') x 6, 'ville', 'burg', 'ford', 'heim', 'dale', 'port', 'field', 'stad', 'polis', 'wick' );

sub invented_name {
    my $syllables = shift;
    my $name      = join '', map { pick(@SYLLABLES) } 1 .. $syllables;
    return ucfirst($name);
}

sub postal_code {
    my $format = shift;
    ( my $code = $format ) =~ s/#/int rand 10/ge;
    $code =~ s/A/chr(65 + int rand 26)/ge;
    return $code;
}

my $next_geoname = 5_000_000;

# Per country: the records networks point at (same hashes reused: the writer stores each once).
my ( @country_rows, $total_weight );
$total_weight += $_->[3] for @COUNTRIES;
my $city_count   = 0;
my $record_count = 0;
for my $row (@COUNTRIES) {
    my ( $code, $continent_code, $eu, $weight, $postal, $geoname, $names, $subdivisions ) = @{$row};
    my $continent = {
        code       => $continent_code,
        geoname_id => $CONTINENT_DATA{$continent_code}[0],
        names      => $CONTINENT_DATA{$continent_code}[1]
    };
    my $country = { iso_code => $code, geoname_id => $geoname, names => names8( @{$names} ) };
    $country->{is_in_european_union} = 1 if $eu;    # MaxMind writes it only when true
    my @subs = map {
        my ( $iso, $name, $lat, $lon, $zone, $spread ) = @{$_};
        {   record => {
                iso_code   => $iso,
                geoname_id => $next_geoname++,
                # Bigger places carry more languages in MaxMind's files.
                names => ( $spread >= 1 ? { en => $name, de => $name, fr => $name, es => $name } : { en => $name } ),
            },
            lat    => $lat,
            lon    => $lon,
            zone   => $zone,
            spread => $spread,
        }
    } @{$subdivisions};
    my @cities;
    my $n = int( $CITIES * $weight / $total_weight + 0.5 );
    $n = 3 if $n < 3;
    for ( 1 .. $n ) {
        my $sub  = pick(@subs);
        my $name = invented_name( 2 + int rand 2 ) . pick(@CITY_SUFFIXES);
        my $city = { geoname_id => $next_geoname++, names => { en => $name } };
        $city->{names}{$_} = $name for rand() < 0.25 ? qw(de es fr pt-BR) : ();
        my $lat    = sprintf '%.4f', $sub->{lat} + ( 2 * rand() - 1 ) * $sub->{spread};
        my $lon    = sprintf '%.4f', $sub->{lon} + ( 2 * rand() - 1 ) * $sub->{spread};
        my $radius = weighted( [ 1, 2 ], [ 5, 8 ], [ 10, 10 ], [ 20, 20 ], [ 50, 25 ], [ 100, 20 ], [ 200, 10 ], [ 500, 5 ] );
        my @variants;
        for my $v ( 1 .. 1 + int rand 3 ) {
            my %record = (
                continent          => $continent,
                country            => $country,
                registered_country => $country,
                subdivisions       => [ $sub->{record} ],
                city               => $city,
                location           => {
                    latitude        => $lat + 0,
                    longitude       => $lon + 0,
                    accuracy_radius => $v == 1 ? $radius : ( $radius < 500 ? $radius * 2 : 1000 ),
                    time_zone       => $sub->{zone},
                },
            );
            # One record in five without a postal code (the postal index answers for those).
            $record{postal} = { code => postal_code($postal) } if $postal ne '' && rand() >= 0.2;
            push @variants, \%record;
        }
        push @cities, \@variants;
        $city_count++;
        $record_count += @variants;
    }
    my $first = $subs[0];
    my $country_only = {
        continent          => $continent,
        country            => $country,
        registered_country => $country,
        location           => {
            latitude        => $first->{lat} + 0,
            longitude       => $first->{lon} + 0,
            accuracy_radius => 1000,
            time_zone       => $first->{zone},
        },
    };
    # Anycast networks: MaxMind gives only the registered country; readers fall back to it.
    my $anycast = { continent => $continent, registered_country => $country, traits => { is_anycast => 1 } };
    $record_count += 2;
    push @country_rows,
        {
        code           => $code,
        name           => $names->[1],
        continent_code => $continent_code,
        continent_name => $CONTINENT_DATA{$continent_code}[1]{en},
        weight         => $weight,
        cities         => \@cities,
        country_only   => $country_only,
        anycast        => $anycast,
        };
}

sub weighted_country { return weighted( map { [ $_, $_->{weight} ] } @country_rows ) }

# --- Autonomous systems -------------------------------------------------------------------------

my %CORPORATE = (
    US => [ 'LLC', 'Inc.' ],    GB => ['Ltd'],      DE => [ 'GmbH', 'AG' ], FR => [ 'SAS', 'SA' ],
    NL => ['B.V.'],             ES => ['S.L.'],     IT => [ 'S.p.A.', 'S.r.l.' ], PL => ['Sp. z o.o.'],
    SE => ['AB'],               JP => ['K.K.'],     BR => ['Ltda'],         RU => [ 'LLC', 'JSC' ],
    CH => ['AG'],               AU => ['Pty Ltd'],  NZ => ['Limited'],      IN => ['Pvt Ltd'],
    ZA => ['(Pty) Ltd'],
);
my @KINDS = ( 'Telecom', 'Networks', 'Broadband', 'Hosting', 'Cloud', 'Internet', 'Communications',
    'Data Center', 'Cable', 'Mobile', 'Fiber', 'Online' );
my ( @ases, %used_asn );
for ( 1 .. $ASES ) {
    my $asn;
    do { $asn = 1 + int rand 400_000 } while $used_asn{$asn}
        || $asn == 23456
        || ( $asn >= 64496 && $asn <= 131071 );    # AS_TRANS; documentation, private use, reserved
    $used_asn{$asn} = 1;
    my $country = weighted_country();
    my $base    = invented_name( 2 + int rand 2 );
    my $org
        = rand() < 0.2
        ? uc( $base . '-' . pick(qw(NET AS IX BB)) )
        : join ' ', $base, pick(@KINDS), pick( @{ $CORPORATE{ $country->{code} } // ['Ltd'] } );
    my $domain = lc($base) . '.' . ( rand() < 0.6 ? 'com' : lc( $country->{code} eq 'GB' ? 'uk' : $country->{code} ) );
    push @ases,
        {
        country => $country,
        asn     => { autonomous_system_number => $asn, autonomous_system_organization => $org },
        ipinfo  => { asn => "AS$asn", as_name => $org, as_domain => $domain },
        };
}

# --- Networks -----------------------------------------------------------------------------------

my @V4_SPECIAL = (
    [ '0.0.0.0', 8 ],    [ '10.0.0.0', 8 ],     [ '100.64.0.0', 10 ],   [ '127.0.0.0', 8 ],
    [ '169.254.0.0', 16 ], [ '172.16.0.0', 12 ], [ '192.0.0.0', 24 ],    [ '192.0.2.0', 24 ],
    [ '192.88.99.0', 24 ], [ '192.168.0.0', 16 ], [ '198.18.0.0', 15 ], [ '198.51.100.0', 24 ],
    [ '203.0.113.0', 24 ], [ '224.0.0.0', 3 ],
);

sub v4_int { my @o = split /\./, shift; return ( $o[0] << 24 ) | ( $o[1] << 16 ) | ( $o[2] << 8 ) | $o[3] }
sub v4_text { my $n = shift; return join '.', $n >> 24, ( $n >> 16 ) & 255, ( $n >> 8 ) & 255, $n & 255 }

# The public IPv4 space as CIDR blocks [start, prefix length].
sub public_v4_blocks {
    my @special = sort { $a->[0] <=> $b->[0] } map { [ v4_int( $_->[0] ), 2**( 32 - $_->[1] ) ] } @V4_SPECIAL;
    my ( @blocks, $cursor );
    $cursor = 0;
    for my $s ( @special, [ 2**32, 0 ] ) {
        my ( $start, $size ) = @{$s};
        while ( $cursor < $start ) {
            my $len = 32;
            # The largest block aligned at the cursor that ends before the special range.
            $len-- while $len > 0 && $cursor % 2**( 33 - $len ) == 0 && $cursor + 2**( 33 - $len ) <= $start;
            push @blocks, [ $cursor, $len ];
            $cursor += 2**( 32 - $len );
        }
        $cursor = $start + $size if $start + $size > $cursor;
    }
    return @blocks;
}

my ( $MAX_V4, $MIN_V4 ) = ( 12, 24 );
my @v4 = public_v4_blocks();
my $public_v4 = 0;
$public_v4 += 2**( 32 - $_->[1] ) for @v4;
# No network larger than /12.
for ( my $i = 0; $i < @v4; $i++ ) {
    while ( $v4[$i][1] < $MAX_V4 ) {
        my ( $start, $len ) = @{ $v4[$i] };
        $v4[$i] = [ $start, $len + 1 ];
        push @v4, [ $start + 2**( 31 - $len ), $len + 1 ];
    }
}
# Halve a block picked at random until there are enough: the sizes come out mixed, most between /24
# and /17, a few up to /12 (picking the larger of two instead gives nearly all one size).
my $blocks_wanted = int( $V4_NETWORKS / ( 1 - $V4_UNUSED ) + 0.5 );
while ( @v4 < $blocks_wanted ) {
    my $i = int rand @v4;
    my ( $start, $len ) = @{ $v4[$i] };
    next if $len >= $MIN_V4;
    $v4[$i] = [ $start, $len + 1 ];
    push @v4, [ $start + 2**( 31 - $len ), $len + 1 ];
}
@v4 = sort { $a->[0] <=> $b->[0] } @v4;
# Leave out blocks at random as unallocated space, down to the networks wanted.
my @keep = (1) x @v4;
my $drop = @v4 - $V4_NETWORKS;
while ( $drop > 0 ) {
    my $i = int rand @v4;
    next unless $keep[$i];
    $keep[$i] = 0;
    $drop--;
}
my ( @networks, %lengths, $covered );
for my $i ( 0 .. $#v4 ) {
    next unless $keep[$i];
    my ( $start, $len ) = @{ $v4[$i] };
    push @networks, v4_text($start) . "/$len";
    $lengths{"/$len"}++;
    $covered += 2**( 32 - $len );
}

# IPv6: the top 64 bits as an integer (every prefix here is /48 or shorter).
my @V6_SKIP = ( [ 0x2001_0db8, 32 ], [ 0x2002_0000, 16 ] );    # top 32 bits, prefix length
my ( $v6_cursor, $v6_end ) = ( 0x2001_0400 << 32, 0x3000_0000 << 32 );
my $v6_budget = ( $v6_end - $v6_cursor ) / $V6_NETWORKS;
my $v6_count  = 0;
while ( $v6_count < $V6_NETWORKS ) {
    my $len  = weighted( [ 32, 35 ], [ 36, 10 ], [ 40, 15 ], [ 44, 15 ], [ 48, 25 ] );
    my $size = 2**( 64 - $len );
    $v6_cursor += int( rand( 2 * $v6_budget ) / $size ) * $size;
    $v6_cursor = int( ( $v6_cursor + $size - 1 ) / $size ) * $size;
    last if $v6_cursor + $size > $v6_end;
    my $top32 = $v6_cursor >> 32;
    if ( grep { ( $top32 >> ( 32 - $_->[1] ) ) == ( $_->[0] >> ( 32 - $_->[1] ) ) } @V6_SKIP ) {
        $v6_cursor += $size;
        next;
    }
    push @networks,
        sprintf( '%x:%x:%x:%x::/%d',
        $v6_cursor >> 48, ( $v6_cursor >> 32 ) & 0xffff,
        ( $v6_cursor >> 16 ) & 0xffff, $v6_cursor & 0xffff, $len );
    $lengths{"/$len"}++;
    $v6_count++;
    $v6_cursor += $size;
}

# --- Records per network ------------------------------------------------------------------------

my %TYPES = (
    continent                      => 'map',
    country                        => 'map',
    registered_country             => 'map',
    subdivisions                   => [ 'array', 'map' ],
    city                           => 'map',
    postal                         => 'map',
    location                       => 'map',
    traits                         => 'map',
    names                          => 'map',
    ( map { $_ => 'utf8_string' } @LANGUAGES ),
    code                           => 'utf8_string',
    iso_code                       => 'utf8_string',
    geoname_id                     => 'uint32',
    is_in_european_union           => 'boolean',
    is_anycast                     => 'boolean',
    latitude                       => 'double',
    longitude                      => 'double',
    accuracy_radius                => 'uint16',
    time_zone                      => 'utf8_string',
    autonomous_system_number       => 'uint32',
    autonomous_system_organization => 'utf8_string',
    asn                            => 'utf8_string',
    as_name                        => 'utf8_string',
    as_domain                      => 'utf8_string',
    country_code                   => 'utf8_string',
    continent_code                 => 'utf8_string',
);

sub key_type { return $TYPES{ $_[0] } // die "no type for key $_[0]\n" }

# IPinfo's country and continent are names (strings) where MaxMind's are maps.
sub ipinfo_key_type {
    return 'utf8_string' if $_[0] eq 'country' || $_[0] eq 'continent';
    return key_type( $_[0] );
}

sub tree {
    my (%args) = @_;
    my $tree = MaxMind::DB::Writer::Tree->new(
        ip_version            => 6,
        record_size           => $args{record_size},
        database_type         => $args{database_type},
        languages             => $args{languages} // [],
        description           => { en => "netintel benchmark data ($args{database_type} schema, invented records)" },
        map_key_type_callback => $args{key_type} // \&key_type,
        alias_ipv6_to_ipv4    => 1,
    );
    # Not a public attribute, but the writer keeps it settable for reproducible output.
    $tree->_set_build_epoch($EPOCH);
    return $tree;
}

my $city_tree = tree( record_size => 28, database_type => 'GeoIP2-City', languages => \@LANGUAGES );
my $asn_tree  = tree( record_size => 24, database_type => 'GeoLite2-ASN' );
my $ipinfo_tree
    = tree( record_size => 32, database_type => 'ipinfo lite.mmdb', key_type => \&ipinfo_key_type );

# insert_network hashes the record (Sereal, then SHA-1) on every call; networks share a few thousand
# records, so each record's key is computed once and the writer's own insert is called with it (the
# same bytes, in two thirds of the time).
my %data_key;

sub insert {
    my ( $tree, $network, $data ) = @_;
    my ( $address, $length ) = split qr{/}, $network, 2;
    my $key = $data_key{ 0 + $data } //= key_for_data($data);
    $tree->_insert_network( $address, $length, $key, $data, '' );
    return;
}

my ( $as, %ipinfo_records );
for my $network (@networks) {
    # Runs: about three networks in a row belong to the same AS.
    $as = pick(@ases) if !$as || rand() < 0.35;
    my $home  = rand() < 0.04 ? weighted_country() : $as->{country};
    my $kind  = rand();
    my $place = $kind < 0.02 ? $home->{anycast} : $kind < 0.08 ? $home->{country_only} : pick( @{ pick( @{ $home->{cities} } ) } );
    insert( $city_tree, $network, $place );
    # A few networks have no AS (IPinfo then gives only the country).
    my $has_as = rand() >= 0.03;
    insert( $asn_tree, $network, $as->{asn} ) if $has_as;
    my $key = $home->{code} . ( $has_as ? $as->{ipinfo}{asn} : '' );
    $ipinfo_records{$key} //= {
        country        => $home->{name},
        country_code   => $home->{code},
        continent      => $home->{continent_name},
        continent_code => $home->{continent_code},
        ( $has_as ? %{ $as->{ipinfo} } : () ),
    };
    insert( $ipinfo_tree, $network, $ipinfo_records{$key} );
}

my %files = (
    city   => 'GeoIP2-City-Synthetic.mmdb',
    asn    => 'GeoLite2-ASN-Synthetic.mmdb',
    ipinfo => 'ipinfo-lite-Synthetic.mmdb',
);
my %sizes;
for ( [ city => $city_tree ], [ asn => $asn_tree ], [ ipinfo => $ipinfo_tree ] ) {
    my ( $which, $tree ) = @{$_};
    my $path = File::Spec->catfile( $OUT, $files{$which} );
    open my $fh, '>:raw', $path or die "cannot write $path: $!\n";
    $tree->write_tree($fh);
    close $fh or die "cannot write $path: $!\n";
    $sizes{$which} = -s $path;
}

printf '{"v4Networks":%d,"v6Networks":%d,"v4Coverage":%.4f,"cities":%d,"cityRecords":%d,"ases":%d,'
    . '"ipinfoRecords":%d,"prefixLengths":{%s},"files":{%s}}' . "\n",
    @networks - $v6_count, $v6_count, $covered / $public_v4, $city_count, $record_count, scalar @ases,
    scalar keys %ipinfo_records,
    join( ',', map {"\"$_\":$lengths{$_}"} sort { substr( $a, 1 ) <=> substr( $b, 1 ) } keys %lengths ),
    join( ',', map {"\"$files{$_}\":$sizes{$_}"} sort keys %files );
