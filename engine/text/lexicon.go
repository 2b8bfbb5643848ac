package text

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The vocabulary of musical meaning (issue 25; ARCHITECTURE §10): what the
// words of a prompt that are not attributes imply for the music. It is
// written as text, one entry a line, and read once at start-up
// (parseLexicon); TestLexicon checks every entry.
//
//	mood NAME[, ALIAS…] | VALENCE AROUSAL [major|minor] [dyn=LEVEL] [reg=low|high]
//	    a mood on the valence–arousal plane (each −1…1, after Russell's
//	    circumplex; the values are the author's reading of the word, close to
//	    the NRC VAD lexicon's). Valence gives the mode, arousal the tempo
//	    range, the density and the dynamics (meaning.go); a word may fix its
//	    mode or its dynamics.
//	reg low|high | WORD, …
//	    a register asked: the pitched parts (basses aside) are pulled into
//	    it (registers; a mood may carry one with reg=low|high).
//	dyn LEVEL | WORD, …
//	    dynamics: pp p mp mf f ff, each a target velocity range (dynLevels).
//	tempo BPM | WORD, …
//	    tempo markings and words in the languages musicians use (Italian,
//	    German, French, English); explicit, as "90 bpm" is.
//	ens NAME[, ALIAS…] | [named] progs=A,B;C,D [drums=yes|no] [genre=WORD] [tempo=LO-HI] [density=sparse|dense]
//	    an ensemble: its instrument sets (General MIDI programs; ';'
//	    separates alternatives, drawn by the seed). The names of a "named"
//	    ensemble are explicit instruments ("string quartet": its first set;
//	    drums=yes asks for drums); the other ensembles are what scenes and
//	    styles imply ("8-bit", "lo-fi").
//	scene NAME[, ALIAS…] | [mood=M+M] [tempo=LO-HI] [ens=E] [genre=WORD] [drums=yes|no] [meter=N/D] [dyn=LEVEL] [density=sparse|dense]
//	    a scene, use, activity, style or era: what it implies. Genre words
//	    of the parser (genreTerms) may have a scene entry too, which gives the
//	    genre's tempo range, drums and ensemble.
//
// Tempo ranges of scenes and styles are musicians' conventions (dance
// tempi, club genres' bpm, lullabies near a resting heart rate); where the
// corpora hold the genre, its measured range (corpus_tempo.go) is used
// instead (genreTempo).
const lexiconText = `
# --- moods: positive, energetic ---
mood happy, happiness, happily, glad, gladness, pleased | .8 .5 major
mood joyful, joy, joyous, joyfully, jubilant, jubilation, elated, elation, exuberant, exultant, overjoyed | .9 .65 major
mood cheerful, cheery, cheerfully, merry, jolly, jovial, chipper, sunny | .8 .5 major
mood bright, brightness, radiant, shiny, sparkling, sparkly, shimmering | .7 .45 major reg=high
mood upbeat, peppy, perky, zippy, spirited, bubbly | .7 .6 major
mood uplifting, uplifted, inspiring, inspirational, inspired, motivational, motivating, encouraging, empowering | .8 .55 major
mood hopeful, hope, optimistic, optimism, hopefulness | .6 .25 major
mood triumphant, triumph, victorious, victory, glorious, glory, conquering, winning | .8 .8 major dyn=f
mood heroic, hero, heroes, heroism, brave, bravery, valiant, courageous, courage, gallant | .65 .75 major
mood majestic, majesty, regal, royal, stately, noble, grandiose, dignified, ceremonial | .55 .35 major
mood grand | .5 .5 major
mood proud, pride, confident, confidence, bold, boldness | .55 .55 major
mood festive, celebratory, celebration, celebrate, celebrating, party, partying, festivities | .85 .75 major
mood playful, playfully, playfulness, frisky, mischievous, impish, cheeky, teasing | .7 .6 major reg=high
mood whimsical, whimsy, quirky, quirkiness, fanciful, eccentric, zany | .6 .45 major reg=high
mood silly, goofy, funny, comic, comical, humorous, humour, humor, wacky, clownish, cartoonish | .65 .6 major
mood cute, adorable, kawaii, sweet, sweetness, charming, lovely, pretty | .75 .2 major reg=high
mood innocent, innocence, childlike, naive, pure | .6 -.2 major reg=high
mood bouncy, bouncing, springy, hopping, skipping | .7 .7 major
mood lively, animated, vivacious, vibrant, sprightly, brisk | .7 .75 major
mood energetic, energy, energized, energised, dynamic, vigorous, vigor, high energy | .5 .9
mood exciting, excited, excitement, thrilling, thrill, exhilarating, adrenaline | .55 .9
mood euphoric, euphoria, ecstatic, ecstasy, blissful, bliss, rapturous | .9 .85 major
mood hypnotic, hypnotizing, hypnotising, mesmerizing, mesmerising, trancelike, trance like, repetitive, droning | .1 .05
mood fun, enjoyable, entertaining, amusing | .8 .6 major
mood groovy, groove, grooving, funkiness, danceable | .6 .35
mood carefree, lighthearted, light hearted, light, easygoing, breezy, relaxed and happy | .8 .35 major
mood adventurous, adventure, adventures, daring, swashbuckling, questing | .55 .7 major
mood determined, determination, resolute, unstoppable, relentless | .2 .8
mood powerful, power, mighty, strong, strength, forceful, massive, huge, colossal | .25 .8 dyn=f
mood epic, epicness, legendary, monumental, larger than life | .25 .85
mood summery, summer, sunshine | .75 .5 major
mood warm, warmth, warmly, lush, heartwarming, heartfelt, wholesome, comforting, comfort | .65 -.25 major
mood cozy, cosy, snug, homely, hygge | .65 -.45 major
# --- moods: positive, calm ---
mood calm, calmly, calmness, calming, stillness, unhurried, composed | .4 -.7
mood peaceful, peace, peacefully, peacefulness, harmonious | .6 -.7 major
mood serene, serenity, serenely, tranquil, tranquility, tranquillity, placid, idyllic, pastoral | .6 -.75 major
mood relaxing, relaxed, relax, relaxation, restful, rest, unwinding, unwind, laid back, laidback, soothing, soothe, soothed | .5 -.7
mood gentle, gently, gentleness, tender, tenderly, tenderness, soft hearted | .45 -.55
mood mellow, mellowness, smooth, smoothly, silky, velvety, easy listening | .45 -.45
mood chill, chilled, chilling, chilled out, chillout, chill out, cool | .4 -.45
mood dreamy, dream, dreams, dreaming, dreamlike, dreamscape, reverie, floating, hazy | .4 -.6
mood ethereal, heavenly, celestial, angelic, otherworldly, airy, weightless | .45 -.6 reg=high
mood magical, magic, enchanting, enchanted, mystical, fairytale, fairy tale, wondrous, wonder, awe | .45 .05 reg=high
mood romantic, romance, romantically, loving, love, lovers, passion, passionate, sensual, amorous, intimate, intimacy | .6 -.15
mood meditative, meditation, contemplative, contemplation, reflective, reflection, introspective, introspection, pensive, thoughtful, spiritual, prayerful | .15 -.65
mood sleepy, drowsy, sleep, sleeping, slumber, dozing, lazy, languid, lethargic | .3 -.85
mood delicate, delicately, fragile, dainty, graceful, gracefully, grace, elegant, elegance | .45 -.45 reg=high
mood sacred, holy, reverent, reverence, devotional, worship | .35 -.55
mood nostalgic, nostalgia, reminiscent, memories, memory, remembering, sentimental, sentiment, vintage feel | .1 -.4
mood wistful, wistfully, wistfulness, longing, yearning, pining, homesick | -.25 -.4 minor
mood bittersweet | -.1 -.3
# --- moods: negative, calm ---
mood sad, sadness, sadly, unhappy, unhappiness, blue, downcast, dejected, sorrow, sorrowful, sorrowfully | -.7 -.4 minor
mood melancholy, melancholic, melancholia, melancholically, doleful, rueful, forlorn, plaintive | -.6 -.4 minor
mood mournful, mourning, mourn, grief, grieving, grieve, lament, lamenting, elegiac, elegy, dirge, requiem, threnody, funereal, bereaved | -.8 -.5 minor
mood lonely, loneliness, lonesome, alone, solitary, solitude, isolated, isolation, abandoned | -.6 -.5 minor
mood gloomy, gloom, somber, sombre, bleak, dreary, dismal, grim, joyless | -.65 -.45 minor
mood depressing, depressed, depression, despair, despairing, hopeless, hopelessness, miserable, misery, heartbroken, heartbreak, heartbreaking, broken hearted, tragic, tragedy, tearful, tears, crying, weeping | -.85 -.35 minor
mood desolate, desolation, barren, empty, emptiness, wasteland, forsaken, deserted | -.7 -.6 minor
mood solemn, solemnly, solemnity, grave, serious, sober, austere | -.3 -.5 minor
mood haunting, haunted, hauntingly, ghostly, spectral, phantom | -.4 -.3 minor
mood emotional, emotive, emotion, moving, touching, poignant, heartrending | -.2 -.2
mood cold, icy, frozen, chilly, wintry, bleak winter | -.35 -.35 minor
mood brooding, broody, moody, sullen, dour, morose | -.5 -.15 minor reg=low
# --- moods: negative, tense ---
mood dark, darkness, darkly, shadowy, shadows, black, murky, nocturnal | -.6 .0 minor reg=low
mood ominous, foreboding, dread, dreadful, looming, threatening, doom, doomed | -.65 .1 minor reg=low
mood sinister, evil, wicked, malevolent, villain, villainous, villains, demonic, diabolical, devilish, cursed | -.75 .35 minor reg=low
mood menacing, menace, intimidating | -.7 .5 minor reg=low
mood mysterious, mystery, mysteries, mystique, enigmatic, cryptic, secretive, secret, secrets, puzzling | -.25 -.1 minor
mood eerie, eerily, uncanny, unsettling, creepy, creep, spooky, spooks, weird, strange, bizarre | -.5 .1 minor
mood scary, scared, fear, fearful, afraid, frightening, frightened, terrifying, terror, terrified, horror, horrifying, horrific, nightmare, nightmarish, petrifying | -.8 .6 minor
mood tense, tension, suspense, suspenseful, countdown, ticking clock, edgy, thrilling suspense, cliffhanger | -.5 .6 minor
mood anxious, anxiety, nervous, nervousness, uneasy, unease, restless, restlessness, jittery, worried, worry, panic, panicked, agitated, agitation | -.6 .65 minor
mood dramatic, drama, dramatically, theatrical, climactic, climax | -.2 .7 minor
mood intense, intensity, intensely, fierce, fiercely, ferocious, savage, wild, untamed | -.35 .9
mood urgent, urgency, hurried, rushing, desperate, desperation | -.35 .85 minor
mood angry, anger, angrily, rage, raging, enraged, furious, fury, wrathful, wrath, mad, hateful, hate, hostile, hostility | -.8 .9 minor dyn=ff
mood aggressive, aggression, aggressively, violent, violence, brutal, brutality, vicious, harsh, abrasive, pounding, crushing | -.6 .95 minor dyn=ff
mood rebellious, rebel, rebellion, defiant, defiance, angsty, angst | -.35 .85 minor dyn=f
mood chaotic, chaos, frantic, frenzied, frenzy, manic, hectic, turbulent, turmoil, mayhem, madness | -.5 .95 minor
mood heavy, heaviness, weighty, thunderous, crushing weight | -.3 .7 minor reg=low
mood war, warlike, martial, battle ready, militant | -.45 .85 minor dyn=ff

# --- dynamics ---
dyn pp | pp, ppp, pianissimo, pianississimo, very soft, very softly, very quiet, very quietly, whisper, whispering, whispered, hushed, barely audible, faint, feather light, extremely soft, extremely quiet
dyn p | p dynamics, soft, softly, softer, quiet, quietly, quieter, subdued, muted dynamics, low volume, gentle dynamics, dolce, sotto voce, soft spoken, understated, light touch, lightly, tender dynamics
dyn mp | mp, mezzo piano, moderately soft, fairly soft, rather quiet, not loud, not too loud, not very loud, restrained
dyn mf | mf, mezzo forte, moderately loud, medium loud, medium volume, not too soft, not too quiet, not soft, not quiet, normal volume
dyn f | f dynamics, forte, loud, loudly, louder, strong dynamics, punchy, full volume, big sound, bold dynamics, emphatic, vigorous dynamics
dyn ff | ff, fff, fortissimo, fortississimo, very loud, very loudly, extremely loud, thunderous, booming, boom, blaring, deafening, explosive, earsplitting, ear splitting, bombastic, pounding, hammering, roaring, blasting, full blast, at full volume, thundering

# --- register (explicit) ---
reg low | low register, low pitched, low notes, deep, deep sounding, bassy, bass heavy, rumbling, subterranean, in the low register, low range
reg high | high register, high pitched, high notes, tinkling, twinkling, twinkly, glittering, glassy, in the high register, high range, soaring

# --- tempo words (explicit) ---
tempo 24 | larghissimo
tempo 44 | lento assai, adagio assai, tres lent, sehr langsam, very very slow, extremely slow, glacial
tempo 56 | lent, lentement, langsam, despacio, lento molto
tempo 66 | assez lent, ziemlich langsam, tranquillo, ruhig, calmo, heartbeat tempo
tempo 80 | gemachlich, gemaechlich, gemächlich, andante tranquillo, adagio ma non troppo
tempo 100 | modere, moderement, massig, mäßig, maessig, mässig, maßig, massig bewegt, andante moderato, tempo moderato, midtempo, medium pace
tempo 116 | bewegt, mit bewegung, allegretto moderato, tempo di marcia, walking tempo, marching tempo
tempo 124 | allegro moderato, allegro ma non troppo, dance tempo, danceable tempo
tempo 132 | anime, assez vif, zugig, zuegig, con moto, con brio, allegro giusto
tempo 150 | lebhaft, schnell, rasch, vif, vite, rapide, rapido, molto allegro, allegro vivace, agitato, animato, driving tempo
tempo 176 | sehr schnell, tres vif, tres vite, tres rapide, allegrissimo, molto vivace, presto agitato, running tempo
tempo 200 | so schnell wie moglich, aussi vite que possible, as fast as possible, lightning fast, blazing fast, blistering

# --- ensembles (their names are explicit instruments) ---
ens orchestra, full orchestra, symphony orchestra, symphony, philharmonic, orchestral ensemble | named progs=48,60,73,47;48,42,56,71;49,60,68,47 drums=no genre=orchestral
ens chamber orchestra, sinfonietta, chamber ensemble | named progs=40,42,68,73;48,71,70,60 drums=no genre=chamber music
ens string orchestra, string ensemble, string section, strings section | named progs=48;49,42;48,43 drums=no
ens string quartet, string quartets | named progs=40,41,42 drums=no genre=chamber music
ens string trio | named progs=40,41,42 drums=no genre=chamber music
ens piano trio | named progs=0,40,42 drums=no genre=chamber music
ens piano quartet, piano quintet | named progs=0,40,41,42 drums=no genre=chamber music
ens wind quintet, woodwind quintet, woodwind ensemble, wind ensemble | named progs=68,70,71,73,60 drums=no
ens brass quintet, brass ensemble, brass choir | named progs=56,57,58,60 drums=no
ens brass band, silver band, colliery band | named progs=56,57,58,60;56,61,58 drums=no
ens marching band, drum corps, drum and bugle corps, military band, parade band | named progs=56,57,58,72;61,58,72 drums=yes genre=march tempo=108-124
ens big band, swing band, jazz orchestra, jazz big band | named progs=56,57,65,32;0,56,65,66,32;61,65,32 drums=yes genre=big band tempo=120-176
ens jazz trio, piano trio jazz | named progs=0,32 drums=yes genre=jazz
ens jazz combo, jazz quartet, jazz band, jazz ensemble | named progs=0,32,65;0,32,56;26,32,65 drums=yes genre=jazz
ens jazz quintet | named progs=0,32,65,56 drums=yes genre=jazz
ens rock band, rock group, rock trio | named progs=29,33;29,33,0;27,30,33 drums=yes genre=rock
ens power trio | named progs=29,33 drums=yes genre=rock
ens metal band, heavy metal band | named progs=30,33;30,34 drums=yes genre=metal
ens punk band | named progs=30,34;30,33 drums=yes genre=punk
ens blues band | named progs=27,33,0;26,33,22;29,33,16 drums=yes genre=blues
ens funk band | named progs=36,27,7;36,27,61;33,4,27 drums=yes genre=funk
ens country band | named progs=25,40,33;25,27,33;25,105,33 drums=yes genre=country
ens bluegrass band | named progs=105,40,25,32 drums=no genre=bluegrass
ens folk band, acoustic band, acoustic folk band | named progs=25,40;25,21,40;24,73,32 drums=no genre=folk
ens ceilidh band, celtic band, irish band | named progs=40,78,25;40,21,24 drums=no genre=celtic
ens mariachi, mariachi band | named progs=56,40,24;56,40,25 drums=no genre=latin
ens gamelan, gamelan orchestra | named progs=13,11,14;12,13,9 drums=no
ens choir, chorus, chorale ensemble, vocal ensemble, singers, voices, a cappella choir | named progs=52;52,53 drums=no
ens church choir | named progs=52,19 drums=no genre=hymn
ens gospel choir | named progs=52,16,0 drums=yes genre=gospel
ens chiptune band, nes, famicom, gameboy, game boy, 8 bit, 8bit, 16 bit, sega genesis, snes, chip music, chiptunes | progs=80,38;80,81,38 drums=yes genre=chiptune
ens edm, edm drop, electronic dance music, rave | progs=81,38,90;81,38,89 drums=yes genre=edm
ens synth band | progs=81,38,89;80,38,90 drums=yes genre=electronic
ens lofi band, lo fi, lofi, lo-fi, chillhop, chill hop, lofi hip hop, lo fi hip hop, jazzhop, jazz hop | progs=4,33;4,26,33;0,33 drums=yes genre=lofi tempo=70-90
ens synthwave band, synthwave, retrowave, outrun, vaporwave, darksynth | progs=81,38,89;81,38,90 drums=yes genre=synthwave tempo=84-118
ens ambient textures, ambient pads, drone | progs=89;89,88;92,95 drums=no genre=ambient density=sparse
ens duo | progs=0,40;25,73 drums=no
ens opera set | progs=53,48;52,48,0;53,0 drums=no genre=classical
ens broadway set | progs=0,56,33;0,61,32;0,48,33 drums=yes
ens cabaret set | progs=0,59,32;0,65,32 drums=yes genre=jazz
ens bollywood set | progs=104,48,73;110,48,0;104,75,33 drums=yes
ens lullaby set | progs=10;0;46,48;8,0 drums=no density=sparse
ens meditation set | progs=89;77,46;107,89;88 drums=no density=sparse
ens fanfare brass | progs=56,57,60;56,61,47 drums=no
ens epic orchestra | progs=48,61,47;48,60,57,47 drums=yes density=dense
ens horror strings | progs=44,0;48,19;44,42 drums=no
ens cafe jazz | progs=0,32;24,32,73;26,32 drums=yes genre=jazz
ens noir jazz | progs=59,0,32;66,0,32 drums=yes genre=jazz
ens spy band | progs=26,32,59;27,33,61 drums=yes
ens tavern band | progs=40,21,24;40,109,24;74,24,40 drums=no genre=folk
ens medieval consort | progs=24,74;24,74,46;109,74 drums=no
ens renaissance consort | progs=24,74,70;24,46,74 drums=no
ens baroque ensemble | progs=6,48;6,40,42;19,48 drums=no genre=baroque
ens circus band | progs=82,56,58;21,58,56 drums=yes
ens cartoon band | progs=13,45,71;9,45,58;12,71,58 drums=yes
ens tropical band | progs=114,24,33;12,25,33 drums=yes
ens beach band | progs=25,33;24,33,114 drums=yes
ens western band | progs=25,22,32;25,78,32;24,22 drums=no genre=western
ens desert band | progs=104,48;24,73,48 drums=no
ens japanese ensemble | progs=107,77;107,77,116 drums=no
ens chinese ensemble | progs=110,107;110,107,105 drums=no
ens space ambient | progs=89,81;92,88;95,89,0 drums=no
ens winter bells | progs=8,48;9,0;14,48,73 drums=no
ens nature ensemble | progs=73,46;73,48;75,46 drums=no
ens church organ set | progs=19;19,52 drums=no genre=hymn
ens funeral set | progs=19;48,42;60,57,58 drums=no
ens wedding set | progs=48,0;19;48,73 drums=no
ens disco band | progs=48,33,27;61,33,27 drums=yes genre=disco
ens reggae band | progs=16,27,33;27,33 drums=yes genre=reggae
ens ska band | progs=56,27,33;61,27,33 drums=yes genre=ska
ens latin band | progs=0,56,32;24,73,32 drums=yes genre=latin
ens bossa trio | progs=24,32,73;24,32,0 drums=yes genre=bossa nova
ens tango ensemble | progs=23,40,0;23,40,32 drums=no genre=tango
ens flamenco set | progs=24;24,24 drums=no genre=flamenco
ens hip hop set | progs=0,38;4,33;48,38 drums=yes genre=hip hop
ens trap set | progs=38,80;38,88;38,10 drums=yes genre=trap
ens house set | progs=81,38,4;90,38 drums=yes genre=house
ens techno set | progs=81,38;38,90;80,38 drums=yes genre=techno
ens trance set | progs=81,38,90;81,89,38 drums=yes genre=trance
ens dnb set | progs=38,89;38,81 drums=yes genre=drum and bass
ens dubstep set | progs=38,81;38,80 drums=yes genre=dubstep
ens gospel set | progs=16,0,52;16,0,33 drums=yes genre=gospel
ens country set | progs=25,40,33;25,27,33 drums=yes genre=country
ens rockabilly set | progs=27,32,0;0,65,33 drums=yes genre=rock and roll
ens surf set | progs=27,33;27,16,33 drums=yes genre=rock
ens eighties set | progs=81,38,89;80,38,4;90,33 drums=yes genre=synthpop
ens grunge set | progs=30,33;29,33 drums=yes genre=grunge
ens indie set | progs=27,33;27,33,4 drums=yes genre=indie
ens pop set | progs=0,33;27,33,0;4,33,48 drums=yes genre=pop
ens soul set | progs=4,33,61;0,33,48 drums=yes genre=soul
ens ragtime set | progs=0;0,3 drums=no genre=ragtime
ens twenties band | progs=0,71,58,56;0,56,57,58 drums=yes genre=jazz
ens celtic set | progs=40,78;40,78,25;109 drums=no genre=celtic
ens klezmer set | progs=71,40,21 drums=no genre=klezmer
ens polka set | progs=21,71,58;21,58 drums=no genre=polka
ens blues set | progs=27,33,0;22,25,33;26,33,0 drums=yes genre=blues
ens metal set | progs=30,33;30,34 drums=yes genre=metal
ens punk set | progs=30,34;30,33 drums=yes genre=punk
ens rock set | progs=29,33;27,29,33;29,33,0 drums=yes genre=rock
ens funk set | progs=36,27,7;33,27,61 drums=yes genre=funk
ens jazz set | progs=0,32;0,32,65;26,32,0 drums=yes genre=jazz
ens swing set | progs=56,65,32,0;61,65,32 drums=yes genre=swing
ens classical set | progs=0;48;40,0;42,0 drums=no genre=classical
ens chamber set | progs=40,41,42;0,40,42 drums=no genre=chamber music
ens ambient set | progs=89;89,88;92,0;89,95 drums=no genre=ambient density=sparse
ens new age set | progs=88,46;88,0;89,73 drums=no genre=new age
ens electronic set | progs=81,38,89;80,38,90;4,38,89 drums=yes genre=electronic
ens game set | progs=80,38;80,81,38;48,60,47 drums=yes genre=game

# --- styles: genre words with their tempo, drums and instruments ---
scene rock, rock music, rock song, classic rock, hard rock, soft rock, alternative rock, alt rock | tempo=108-140 drums=yes ens=rock set mood=energetic
scene garage rock, garage band | tempo=130-160 drums=yes ens=rock set dyn=f
scene punk, punk rock, pop punk, hardcore punk | tempo=160-200 drums=yes ens=punk set mood=rebellious dyn=ff
scene metal, heavy metal, thrash metal, thrash, death metal, black metal, metalcore, nu metal | tempo=100-180 drums=yes ens=metal set mood=aggressive dyn=ff
scene grunge | tempo=90-130 drums=yes ens=grunge set mood=brooding dyn=f
scene indie, indie rock, indie pop | tempo=100-130 drums=yes ens=indie set
scene rock and roll, rock n roll, rock 'n' roll, rockabilly, doo wop | tempo=140-180 drums=yes ens=rockabilly set mood=upbeat
scene pop, pop song, pop music, kpop, jpop, cpop, kpop song | drums=yes ens=pop set
scene synthpop, synth pop, electropop | tempo=110-128 drums=yes ens=eighties set
scene ballad, power ballad, love song | tempo=62-80 mood=tender
scene jazz, jazzy, jazz tune, jazz standard | tempo=100-160 drums=yes ens=jazz set
scene cool jazz, smooth jazz | tempo=80-110 drums=yes ens=jazz set mood=smooth dyn=mp
scene swing, big band swing | tempo=130-180 drums=yes ens=swing set mood=groovy
scene bebop, bop | tempo=180-260 drums=yes ens=jazz set
scene jazz waltz | tempo=120-160 drums=yes ens=jazz set meter=3/4
scene ragtime, stride piano | tempo=90-110 ens=ragtime set drums=no mood=playful
scene blues, blues jam, twelve bar blues, 12 bar blues | tempo=70-110 drums=yes ens=blues set mood=melancholy
scene boogie woogie, boogie | tempo=140-170 drums=yes mood=lively
scene shuffle | tempo=100-130 drums=yes
scene funk, funky groove, funky | tempo=95-115 drums=yes ens=funk set mood=groovy
scene disco | tempo=112-128 drums=yes ens=disco band mood=festive
scene soul, motown, r&b, rnb, neo soul | tempo=70-105 drums=yes ens=soul set
scene hip hop, hiphop, rap, boom bap | tempo=84-98 drums=yes ens=hip hop set
scene trap, trap beat | tempo=130-150 drums=yes ens=trap set mood=dark
scene reggae, roots reggae, dub | tempo=64-86 drums=yes ens=reggae band mood=chill
scene ska | tempo=140-170 drums=yes ens=ska band mood=upbeat
scene reggaeton | tempo=88-100 drums=yes ens=latin band
scene latin, latin jazz, salsa, mambo | tempo=150-200 drums=yes ens=latin band mood=lively
scene samba | tempo=96-112 drums=yes ens=latin band mood=festive
scene bossa nova, bossa | tempo=110-140 drums=yes ens=bossa trio mood=smooth dyn=mp
scene cha cha, cha cha cha, rumba, bolero, beguine | tempo=100-124 drums=yes ens=latin band
scene tango, argentine tango | tempo=110-128 drums=no ens=tango ensemble mood=passionate
scene flamenco | tempo=100-140 ens=flamenco set mood=passionate
scene afrobeat, highlife | tempo=100-120 drums=yes
scene calypso, soca | tempo=100-125 drums=yes ens=tropical band mood=happy
scene country, country music, country song, americana, honky tonk | tempo=90-130 drums=yes ens=country set
scene bluegrass | tempo=120-160 drums=no ens=bluegrass band mood=lively
scene western, spaghetti western, cowboy, cowboys, wild west | tempo=90-120 ens=western band mood=adventurous
scene folk, folk song, folk tune, folk music | tempo=90-126 ens=folk band drums=no
scene country dance, english country dance, morris, morris dance, playford, barn dance, ceilidh, contra dance, square dance | tempo=100-126 ens=folk band drums=no mood=lively
scene celtic, irish, scottish, gaelic | tempo=100-130 ens=celtic set drums=no
scene jig, reel, hornpipe, slip jig, strathspey | tempo=100-130 drums=no mood=lively
scene shanty, sea shanty | tempo=90-110 drums=no ens=tavern band
scene klezmer | tempo=100-140 drums=no ens=klezmer set
scene polka | tempo=110-132 drums=no ens=polka set mood=cheerful
scene waltz, valse, waltzes | tempo=84-110 drums=no
scene viennese waltz | tempo=150-180 drums=no ens=orchestra meter=3/4
scene march, marches, military march | tempo=104-124 drums=yes mood=proud
scene minuet, sarabande, gavotte | tempo=90-112 drums=no ens=baroque ensemble
scene classical, classical music, classical piece, classic piece | drums=no ens=classical set
scene baroque, baroque music, bach style | tempo=80-120 drums=no ens=baroque ensemble
scene chamber music | drums=no ens=chamber set
scene orchestral, symphonic, philharmonic sound, orchestrated | drums=no ens=orchestra
scene film score, movie score, soundtrack, cinematic, film music, movie soundtrack | ens=orchestra mood=dramatic
scene nocturne | tempo=56-76 drums=no mood=dreamy density=sparse
scene etude, study piece | drums=no
scene sonata, sonatina, concerto, symphony movement | drums=no
scene fugue, prelude, invention, toccata | drums=no
scene chorale, hymn, hymns, psalm | tempo=66-88 drums=no ens=church organ set mood=reverent
scene gospel | tempo=70-110 drums=yes ens=gospel set mood=uplifting
scene anthem | tempo=76-100 mood=proud
scene carol, christmas carol, carols | tempo=80-110 drums=no ens=winter bells mood=festive
scene electronic, electronica, electronic music, idm | tempo=110-130 drums=yes ens=electronic set
scene edm, big room, electro house | tempo=124-130 drums=yes ens=edm mood=euphoric dyn=f
scene house, deep house, house music, tech house | tempo=118-126 drums=yes ens=house set
scene techno, minimal techno | tempo=125-138 drums=yes ens=techno set mood=determined
scene trance, psytrance | tempo=132-140 drums=yes ens=trance set mood=euphoric
scene dubstep, brostep | tempo=138-142 drums=yes ens=dubstep set mood=aggressive dyn=ff
scene drum and bass, dnb, jungle, drum n bass, liquid dnb | tempo=164-178 drums=yes ens=dnb set mood=energetic
scene synthwave, retrowave, outrun | tempo=84-118 drums=yes ens=synthwave band mood=nostalgic
scene lofi, lo fi, chillhop, lofi hip hop, lo fi hip hop, lo-fi, jazzhop | tempo=70-90 drums=yes ens=lofi band mood=chill dyn=mp
scene ambient, ambience, ambient music, atmospheric, soundscape | tempo=56-80 drums=no ens=ambient set mood=calm dyn=p
scene new age | tempo=60-80 drums=no ens=new age set mood=serene dyn=p
scene chiptune, 8 bit, 8bit, chip music, chiptunes, nes music | drums=yes ens=chiptune band
scene video game, video game music, game music, vgm, game theme, game soundtrack | drums=yes ens=game set
scene minimalism, minimalist, minimal music | drums=no density=sparse

# --- scenes and uses ---
scene lullaby, lullabies, bedtime, bedtime song, bedtime story, cradle song, berceuse, nursery, baby, babies, goodnight, good night, nap time, naptime | mood=tender+sleepy tempo=60-76 ens=lullaby set drums=no dyn=p genre=lullaby density=sparse
scene sleep music, falling asleep, fall asleep, insomnia, sleep aid, before sleep | mood=sleepy tempo=54-68 ens=lullaby set drums=no dyn=pp
scene meditation, meditate, meditating, mindfulness, mindful, zen, zen garden, yoga, tai chi, breathing exercise, spa, massage, healing, reiki | mood=serene tempo=50-66 ens=meditation set drums=no dyn=p
scene study, studying, study music, focus, focusing, concentration, concentrate, homework, revision, exam, coding, programming, working, office, reading, library, deep work | mood=calm tempo=70-92 dyn=mp
scene battle, battles, war, warfare, combat, fight, fighting, sword fight, duel, skirmish, siege, army, armies, soldiers, war drums | mood=intense tempo=126-160 ens=epic orchestra drums=yes dyn=ff mode=minor
scene boss fight, boss battle, final boss, boss, showdown, final battle, last stand | mood=intense+menacing tempo=144-176 ens=epic orchestra drums=yes dyn=ff
scene chase, car chase, pursuit, escape, getaway, running away | mood=urgent tempo=150-180 drums=yes dyn=f
scene action, action scene, action movie, action sequence | mood=exciting tempo=130-160 drums=yes dyn=f
scene party, parties, dance party, house party, disco night, club, nightclub, dance club, dancefloor, dance floor, clubbing, rave party | mood=festive tempo=118-128 drums=yes dyn=f
scene dance, dancing, dance music, dance track | tempo=110-128 drums=yes
scene birthday, birthday party | mood=happy tempo=100-124 drums=yes
scene wedding, weddings, wedding ceremony, bride, bridal | mood=joyful+romantic tempo=84-112 ens=wedding set
scene wedding dance, first dance | mood=joyful tempo=100-124 drums=yes
scene church, cathedral, chapel, mass, sunday service, service, prayer, praying | mood=reverent tempo=60-84 ens=church organ set drums=no
scene funeral, funerals, burial, memorial, wake, procession of mourners | mood=mournful tempo=50-68 ens=funeral set drums=no dyn=p
scene procession, royal procession, coronation, ceremony, graduation, parade | mood=majestic tempo=76-104 ens=fanfare brass
scene victory fanfare, fanfare, fanfares, victory theme, level complete, award | mood=triumphant tempo=100-124 ens=fanfare brass dyn=f
scene horror, horror movie, horror film, slasher, haunted house, haunted, ghost, ghosts, zombie, zombies, halloween, monster, monsters, graveyard, cemetery, crypt | mood=scary ens=horror strings tempo=60-96 drums=no
scene thriller, spy, spy movie, spy thriller, espionage, secret agent, stealth, stealth mission, sneaking, sneaky, sneak, tiptoe, tiptoeing, creeping, infiltration, heist, caper | mood=tense tempo=96-124 ens=spy band drums=yes dyn=mp
scene noir, detective, film noir, private eye, crime, investigation | mood=mysterious tempo=66-92 ens=noir jazz dyn=mp
scene mystery, puzzle, riddle, investigation scene | mood=mysterious tempo=80-104
scene dungeon, dungeons, cave, caves, cavern, catacombs, labyrinth, underground | mood=dark+mysterious tempo=76-104
scene castle, kingdom, king, queen, throne, palace, court, knights, knight | mood=majestic tempo=84-112 ens=orchestra
scene medieval, middle ages, tavern, inn, pub, alehouse, feast, banquet, bard | mood=merry tempo=100-132 ens=tavern band drums=no
scene renaissance, renaissance dance, elizabethan, tudor | mood=graceful tempo=90-120 ens=renaissance consort drums=no
scene fantasy, elves, elf, fairies, fairy, wizard, wizards, dragon, dragons, enchanted forest, myth, mythical | mood=magical tempo=80-112 ens=orchestra
scene pirate, pirates, pirate ship, high seas, sailing, sailors, voyage, ship | mood=adventurous tempo=100-132 ens=tavern band meter=6/8
scene adventure theme, quest, journey, exploration, explore, exploring, expedition, overworld, open world | mood=adventurous tempo=100-132 ens=orchestra
scene title screen, main menu, menu screen, start screen, intro theme, opening theme | mood=heroic tempo=110-140 drums=yes
scene game over, defeat, you died, death scene | mood=sad tempo=56-76 drums=no dyn=p
scene shop, store, item shop, shopping | mood=cheerful tempo=96-120
scene credits, end credits, ending theme, epilogue | mood=nostalgic+hopeful tempo=72-100
scene cutscene, cut scene, trailer, montage | mood=dramatic tempo=90-130
scene training montage, workout, work out, workouts, gym, exercise, fitness, cardio, running, jogging, morning run, run, sprint, sports, stadium, marathon, cycling, hiit | mood=energetic tempo=124-150 drums=yes dyn=f
scene road trip, roadtrip, highway, cruising, drive, driving, night drive, car ride | mood=upbeat tempo=100-126 drums=yes
scene city, city street, busy street, downtown, traffic, rush hour, metropolis, urban, subway | mood=energetic tempo=100-128 drums=yes
scene cyberpunk, neon, dystopia, dystopian, futuristic city | mood=dark tempo=100-130 ens=synthwave band drums=yes
scene space, outer space, cosmos, cosmic, galaxy, galaxies, stars, starry sky, nebula, planets, astronaut, spaceship, space station, sci fi, scifi, science fiction, alien, aliens | mood=dreamy+mysterious tempo=60-92 ens=space ambient drums=no
scene ocean, sea, waves, underwater, under the sea, deep sea, coral reef, aquarium, water level, underwater level | mood=dreamy tempo=60-90 ens=space ambient drums=no
scene beach, seaside, surf, surfing, shore, island, tropical, tropics, tropical island, caribbean, hawaii, hawaiian, luau | mood=carefree tempo=96-124 ens=tropical band
scene summer, summer day, summertime, sunny day, picnic, holiday, holidays, vacation, sunshine day | mood=happy+carefree tempo=96-124
scene spring, springtime, blossom, blossoms, flowers, garden, gardens, meadow, meadows, butterflies, bloom | mood=hopeful+gentle tempo=84-112 ens=nature ensemble
scene autumn, fall, autumnal, falling leaves, harvest, october, november | mood=wistful+nostalgic tempo=70-96
scene winter, snow, snowy, snowfall, snowflakes, winter evening, frost, frosty, december, blizzard, ice, icy level | mood=calm+cold tempo=66-96 ens=winter bells
scene christmas, christmas morning, xmas, santa, sleigh, holiday season, yuletide, noel | mood=festive+warm tempo=90-120 ens=winter bells genre=christmas
scene rain, rainy, rainy day, rainy evening, rainy night, raindrops, drizzle, rainfall, overcast, grey day, gray day | mood=melancholy+calm tempo=66-88 drums=no dyn=mp
scene storm, stormy, thunderstorm, thunder, lightning, tempest, hurricane, stormy sea, rough sea | mood=dramatic+ominous tempo=120-150 dyn=ff
scene sunrise, dawn, daybreak, morning, mornings, sunday morning, early morning, breakfast, waking up, wake up | mood=hopeful+gentle tempo=76-100
scene sunset, dusk, twilight, evening, evenings, golden hour, afternoon, lazy afternoon, sunday afternoon | mood=calm+wistful tempo=68-92
scene night, nighttime, midnight, late night, late-night, late at night, after hours, moonlight, moonlit, moon | mood=calm+mysterious tempo=66-92
scene forest, woods, woodland, nature, jungle trek, trees, mountains, mountain, hills, countryside, valley, river, lake, waterfall, fields | mood=peaceful tempo=68-96 ens=nature ensemble drums=no
scene desert, dunes, arabian, middle eastern, oasis, sahara, bazaar | mood=mysterious tempo=80-110 ens=desert band
scene japan, japanese, samurai, ninja, shrine, temple, kyoto, sakura | mood=serene tempo=66-96 ens=japanese ensemble
scene china, chinese, oriental, dynasty | mood=serene tempo=66-96 ens=chinese ensemble
scene circus, carnival, clown, clowns, funfair, fair, fairground, amusement park, carousel, merry go round | mood=playful tempo=126-160 ens=circus band
scene cartoon, cartoons, kids, kid, children, childrens, children's, nursery rhyme, toddler, toys, toy, playground, preschool | mood=playful+happy tempo=110-140 ens=cartoon band
scene village, town, village festival, festival, fiesta, carnival parade, market | mood=cheerful tempo=100-128
scene coffee shop, cafe, coffeehouse, coffee house, brunch, bistro, lounge, cocktail bar, cocktail, jazz club, hotel lobby, elevator, waiting room | mood=mellow tempo=80-112 ens=cafe jazz dyn=mp
scene dinner, candlelit dinner, candlelight, date night, valentine, valentines, restaurant | mood=romantic tempo=66-96 ens=duo dyn=mp drums=no
scene cooking, kitchen, baking, cleaning, chores, shopping trip | mood=cheerful tempo=96-120
scene goodbye, farewell, parting, departure, leaving home, breakup, break up | mood=sad tempo=60-84
scene memories of home, homecoming, reunion | mood=nostalgic+warm tempo=70-96
scene train station, station, airport, commute | mood=wistful tempo=80-110
scene military, army march, troops, regiment | mood=proud tempo=104-124 ens=marching band drums=yes
scene sunrise over the sea, seascape, lighthouse | mood=peaceful+hopeful tempo=66-92 ens=nature ensemble drums=no
scene hero, superhero, superheroes, heroes theme, hero theme | mood=heroic tempo=110-140 ens=epic orchestra drums=yes dyn=f
scene villain theme, evil lair, dark lord | mood=sinister tempo=70-100 ens=horror strings dyn=f
scene sad scene, emotional scene, tearjerker, death of a hero | mood=sad tempo=56-76 ens=string orchestra drums=no dyn=p
scene romance scene, love scene, kiss, serenade, serenading | mood=romantic tempo=66-90 ens=string orchestra drums=no dyn=mp
scene racing, race, race car, racing game, speedrun | mood=exciting tempo=140-176 drums=yes dyn=f
scene platformer, jump and run, side scroller | mood=playful tempo=120-150 ens=chiptune band drums=yes
scene puzzle game, tetris | mood=playful tempo=110-140 ens=chiptune band drums=yes
scene rpg, jrpg, role playing game | mood=adventurous tempo=90-130 ens=orchestra
scene town theme, village theme, home town, hometown | mood=peaceful+warm tempo=84-110 ens=nature ensemble
scene sports game, victory lap, championship | mood=triumphant tempo=120-140 drums=yes dyn=f
scene elevator music, hold music, muzak | mood=mellow tempo=90-110 ens=cafe jazz dyn=mp
scene documentary, nature documentary | mood=calm+hopeful tempo=70-100 ens=string orchestra
scene corporate, business, presentation, commercial, advert, advertisement | mood=uplifting tempo=100-120 ens=pop set drums=yes
scene vlog, youtube, podcast intro, intro music | mood=upbeat tempo=100-124 ens=pop set drums=yes
scene tiktok, viral, catchy | mood=upbeat tempo=110-128 drums=yes
scene sleepover, campfire, camping, bonfire | mood=warm+nostalgic tempo=80-104 ens=folk band drums=no
scene bath, bubble bath, sauna | mood=relaxing tempo=56-72 ens=ambient set drums=no dyn=p

scene ballroom, ballroom dance, victorian, victorian ballroom, regency, grand ball, masquerade, masquerade ball | mood=graceful tempo=84-104 ens=string orchestra drums=no meter=3/4
scene ballet, ballerina, nutcracker, swan lake | mood=graceful+magical tempo=80-120 ens=orchestra drums=no
scene opera, aria, operatic, bel canto | mood=dramatic tempo=66-100 ens=opera set drums=no
scene musical theatre, musical theater, broadway, show tune, showtune, showtunes, west end, vaudeville | mood=upbeat tempo=100-140 ens=broadway set drums=yes
scene cabaret, burlesque, music hall | mood=playful tempo=100-130 ens=cabaret set drums=yes
scene bollywood, indian, india, bhangra, raga | mood=festive tempo=90-120 ens=bollywood set drums=yes
scene trip hop, triphop, downtempo | mood=dark+chill tempo=70-96 ens=hip hop set drums=yes dyn=mp
scene shoegaze, dream pop, dreampop | mood=dreamy tempo=90-124 ens=rock set drums=yes
scene emo, pop punk ballad | mood=sad+rebellious tempo=120-160 ens=punk set drums=yes
scene dancehall, soca riddim | mood=festive tempo=90-110 ens=reggae band drums=yes
scene barbershop, barbershop quartet, doo wop group, a cappella group | mood=warm tempo=80-110 ens=choir drums=no
scene grand finale, climax, big finish, finale | mood=triumphant tempo=96-132 ens=epic orchestra dyn=ff

# --- eras ---
scene 1920s, twenties, roaring twenties, jazz age, 20s, prohibition, speakeasy, charleston | mood=lively tempo=120-160 ens=twenties band
scene 1930s, 1940s, 30s, 40s, forties, thirties, swing era | mood=groovy tempo=130-170 ens=swing set
scene 1950s, 50s, fifties | mood=upbeat tempo=130-170 ens=rockabilly set drums=yes
scene 1960s, 60s, sixties | mood=upbeat tempo=110-140 ens=surf set drums=yes
scene 1970s, 70s, seventies | mood=groovy tempo=100-124 ens=funk set drums=yes
scene 1980s, 80s, eighties, retro synth | mood=nostalgic+upbeat tempo=100-126 ens=eighties set drums=yes
scene 1990s, 90s, nineties | mood=energetic tempo=96-130 ens=grunge set drums=yes
scene retro, retro game, retro gaming, old school game, arcade, pixel, pixel art | ens=chiptune band drums=yes genre=chiptune
`

// Dynamics levels: the target mean velocity range of each (MIDI
// velocities; the common notation-software mapping has pp 33–49, p 49–64,
// mp 64, mf 80, f 96, ff 112).
var dynLevels = []struct {
	name   string
	lo, hi float64
}{
	{"pp", 32, 44}, {"p", 46, 58}, {"mp", 60, 70}, {"mf", 74, 86}, {"f", 92, 102}, {"ff", 106, 118},
}

// DynamicsLevels are the dynamics a prompt can name, softest first.
func DynamicsLevels() []string {
	out := make([]string, len(dynLevels))
	for i, d := range dynLevels {
		out[i] = d.name
	}
	return out
}

func dynRange(level string) (lo, hi float64, ok bool) {
	for _, d := range dynLevels {
		if d.name == level {
			return d.lo, d.hi, true
		}
	}
	return 0, 0, false
}

type moodDef struct {
	name string
	v, a float64
	mode string // "", "major", "minor"
	dyn  string
	reg  string // "", "low", "high"
}

// registers are the pitch ranges (MIDI, as heard) of "low" and "high":
// below and above the middle of the keyboard, where a listener hears
// "deep" or "bright" music.
var registers = map[string][2]int{"low": {33, 62}, "high": {65, 98}}

type ensembleDef struct {
	name    string
	named   bool // its names are explicit instruments (instrumentTerms)
	options [][]int
	drums   int // +1 yes, −1 no, 0 unset
	genre   string
	tempo   [2]float64
	density string // sparse or dense: a texture the ensemble is ("drone"), "" none
}

type sceneDef struct {
	name    string
	moods   []string
	tempo   [2]float64
	ens     string
	genre   string
	drums   int
	meter   [2]int
	dyn     string
	density string
	mode    string
}

// lexicon is lexiconText read: canonical entries and every phrase (a name
// or an alias, normalized as prompts are) → what it names.
type lexicon struct {
	moods     map[string]*moodDef
	ensembles map[string]*ensembleDef
	scenes    map[string]*sceneDef
	phrases   map[string]lexPhrase
	maxWords  int
}

type lexPhrase struct {
	kind string // mood, dyn, tempo, ens, scene
	name string // canonical name (dyn: level; tempo: bpm)
}

var lex = mustLexicon(lexiconText)

func mustLexicon(src string) *lexicon {
	l, err := parseLexicon(src)
	if err != nil {
		panic(err)
	}
	return l
}

// parseLexicon reads the lexicon text (format in lexiconText's doc).
func parseLexicon(src string) (*lexicon, error) {
	l := &lexicon{moods: map[string]*moodDef{}, ensembles: map[string]*ensembleDef{}, scenes: map[string]*sceneDef{}, phrases: map[string]lexPhrase{}}
	type ref struct {
		line int
		kind string
		name string
	}
	var refs []ref
	addPhrase := func(line int, phrase string, p lexPhrase) error {
		n := normalizePrompt(phrase)
		if n == "" {
			return fmt.Errorf("lexicon line %d: empty phrase", line)
		}
		if old, ok := l.phrases[n]; ok && old != p {
			// A word may be both an ensemble's name and a style (the style
			// wins: it implies the ensemble), or both a mood and a dynamic.
			if !(old.kind == "ens" && p.kind == "scene") && !(old.kind == "mood" && (p.kind == "scene" || p.kind == "dyn")) {
				return fmt.Errorf("lexicon line %d: %q is already %s %q", line, n, old.kind, old.name)
			}
		}
		l.phrases[n] = p
		l.maxWords = max(l.maxWords, len(strings.Fields(n)))
		return nil
	}
	for i, raw := range strings.Split(src, "\n") {
		line := i + 1
		s := strings.TrimSpace(raw)
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		head, body, ok := strings.Cut(s, "|")
		if !ok {
			return nil, fmt.Errorf("lexicon line %d: no '|'", line)
		}
		kind, namesText, _ := strings.Cut(strings.TrimSpace(head), " ")
		var names []string
		for _, n := range strings.Split(namesText, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		body = strings.TrimSpace(body)
		switch kind {
		case "dyn", "tempo", "reg":
			// The head names the level or bpm; the body lists the words.
			if len(names) != 1 {
				return nil, fmt.Errorf("lexicon line %d: %s takes one level", line, kind)
			}
			name := names[0]
			if kind == "reg" {
				if _, ok := registers[name]; !ok {
					return nil, fmt.Errorf("lexicon line %d: unknown register %q", line, name)
				}
			} else if kind == "dyn" {
				if _, _, ok := dynRange(name); !ok {
					return nil, fmt.Errorf("lexicon line %d: unknown dynamics %q", line, name)
				}
			} else if v, err := strconv.ParseFloat(name, 64); err != nil || v < PromptMinBPM || v > PromptMaxBPM {
				return nil, fmt.Errorf("lexicon line %d: tempo %q", line, name)
			}
			for _, w := range strings.Split(body, ",") {
				if w = strings.TrimSpace(w); w != "" {
					if err := addPhrase(line, w, lexPhrase{kind, name}); err != nil {
						return nil, err
					}
				}
			}
			continue
		case "mood", "ens", "scene":
		default:
			return nil, fmt.Errorf("lexicon line %d: unknown kind %q", line, kind)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("lexicon line %d: no name", line)
		}
		name := normalizePrompt(names[0])
		fields := strings.Fields(body)
		switch kind {
		case "mood":
			if len(fields) < 2 {
				return nil, fmt.Errorf("lexicon line %d: mood %q wants VALENCE AROUSAL", line, name)
			}
			m := &moodDef{name: name}
			var err1, err2 error
			m.v, err1 = strconv.ParseFloat(fields[0], 64)
			m.a, err2 = strconv.ParseFloat(fields[1], 64)
			if err1 != nil || err2 != nil || m.v < -1 || m.v > 1 || m.a < -1 || m.a > 1 {
				return nil, fmt.Errorf("lexicon line %d: mood %q: valence and arousal in −1…1", line, name)
			}
			for _, f := range fields[2:] {
				switch {
				case f == "major" || f == "minor":
					m.mode = f
				case f == "reg=low" || f == "reg=high":
					m.reg = strings.TrimPrefix(f, "reg=")
				case strings.HasPrefix(f, "dyn="):
					m.dyn = strings.TrimPrefix(f, "dyn=")
					if _, _, ok := dynRange(m.dyn); !ok {
						return nil, fmt.Errorf("lexicon line %d: dynamics %q", line, m.dyn)
					}
				default:
					return nil, fmt.Errorf("lexicon line %d: mood %q: %q", line, name, f)
				}
			}
			if l.moods[name] != nil {
				return nil, fmt.Errorf("lexicon line %d: mood %q twice", line, name)
			}
			l.moods[name] = m
		case "ens":
			e := &ensembleDef{name: name}
			for _, f := range splitKeyValues(body) {
				k, v := f[0], f[1]
				switch k {
				case "named":
					e.named = true
				case "progs":
					for _, opt := range strings.Split(v, ";") {
						var set []int
						for _, ps := range strings.Split(opt, ",") {
							p, err := strconv.Atoi(ps)
							if err != nil || p < 0 || p > 127 {
								return nil, fmt.Errorf("lexicon line %d: ensemble %q: program %q", line, name, ps)
							}
							set = append(set, p)
						}
						e.options = append(e.options, set)
					}
				case "drums":
					e.drums = map[string]int{"yes": 1, "no": -1}[v]
				case "genre":
					e.genre = strings.ReplaceAll(v, "_", " ")
				case "tempo":
					t, err := parseRange(v)
					if err != nil {
						return nil, fmt.Errorf("lexicon line %d: %w", line, err)
					}
					e.tempo = t
				case "density":
					if v != "sparse" && v != "dense" {
						return nil, fmt.Errorf("lexicon line %d: ensemble %q: density %q", line, name, v)
					}
					e.density = v
				default:
					return nil, fmt.Errorf("lexicon line %d: ensemble %q: %q", line, name, k)
				}
			}
			if len(e.options) == 0 {
				return nil, fmt.Errorf("lexicon line %d: ensemble %q has no programs", line, name)
			}
			if l.ensembles[name] != nil {
				return nil, fmt.Errorf("lexicon line %d: ensemble %q twice", line, name)
			}
			l.ensembles[name] = e
		case "scene":
			sc := &sceneDef{name: name}
			// "genre=chamber music": values may hold spaces up to the next key.
			kv := splitKeyValues(body)
			for _, f := range kv {
				k, v := f[0], f[1]
				switch k {
				case "mood":
					for _, m := range strings.Split(v, "+") {
						sc.moods = append(sc.moods, normalizePrompt(m))
						refs = append(refs, ref{line, "mood", normalizePrompt(m)})
					}
				case "tempo":
					t, err := parseRange(v)
					if err != nil {
						return nil, fmt.Errorf("lexicon line %d: %w", line, err)
					}
					sc.tempo = t
				case "ens":
					sc.ens = normalizePrompt(v)
					refs = append(refs, ref{line, "ens", sc.ens})
				case "genre":
					sc.genre = v
				case "drums":
					sc.drums = map[string]int{"yes": 1, "no": -1}[v]
				case "meter":
					var n, d int
					if _, err := fmt.Sscanf(v, "%d/%d", &n, &d); err != nil {
						return nil, fmt.Errorf("lexicon line %d: meter %q", line, v)
					}
					sc.meter = [2]int{n, d}
				case "dyn":
					if _, _, ok := dynRange(v); !ok {
						return nil, fmt.Errorf("lexicon line %d: dynamics %q", line, v)
					}
					sc.dyn = v
				case "density":
					if v != "sparse" && v != "dense" {
						return nil, fmt.Errorf("lexicon line %d: density %q", line, v)
					}
					sc.density = v
				case "mode":
					sc.mode = v
				default:
					return nil, fmt.Errorf("lexicon line %d: scene %q: key %q", line, name, k)
				}
			}
			if l.scenes[name] != nil {
				return nil, fmt.Errorf("lexicon line %d: scene %q twice", line, name)
			}
			l.scenes[name] = sc
		}
		for _, n := range names {
			if err := addPhrase(line, n, lexPhrase{kind, name}); err != nil {
				return nil, err
			}
		}
	}
	// A scene may name a mood by any of its words ("tender" is gentle's).
	canon := map[string]string{}
	for ph, lp := range l.phrases {
		if lp.kind == "mood" {
			canon[ph] = lp.name
		}
	}
	for n := range l.moods {
		canon[n] = n
	}
	for _, sc := range l.scenes {
		for i, m := range sc.moods {
			if c, ok := canon[m]; ok {
				sc.moods[i] = c
			}
		}
	}
	for _, r := range refs {
		switch r.kind {
		case "mood":
			if canon[r.name] == "" {
				return nil, fmt.Errorf("lexicon line %d: no mood %q", r.line, r.name)
			}
		case "ens":
			if l.ensembles[r.name] == nil {
				return nil, fmt.Errorf("lexicon line %d: no ensemble %q", r.line, r.name)
			}
		}
	}
	return l, nil
}

// splitKeyValues reads "k=v k=v two words k=v" into pairs; a value runs
// to the next word holding '='.
func splitKeyValues(s string) [][2]string {
	var out [][2]string
	for _, f := range strings.Fields(s) {
		if k, v, ok := strings.Cut(f, "="); ok {
			out = append(out, [2]string{k, v})
		} else if len(out) == 0 || f == "named" {
			out = append(out, [2]string{f, ""})
		} else {
			out[len(out)-1][1] += " " + f
		}
	}
	return out
}

func parseRange(s string) ([2]float64, error) {
	a, b, ok := strings.Cut(s, "-")
	lo, err1 := strconv.ParseFloat(a, 64)
	hi, err2 := strconv.ParseFloat(b, 64)
	if !ok || err1 != nil || err2 != nil || lo <= 0 || lo > hi {
		return [2]float64{}, fmt.Errorf("range %q: want LO-HI", s)
	}
	return [2]float64{lo, hi}, nil
}

// Moods are the canonical mood names, sorted (the Compose screen's mood
// choices).
func Moods() []string {
	out := make([]string, 0, len(lex.moods))
	for n := range lex.moods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Ensembles are the lexicon's ensembles, sorted (the Compose screen's
// ensemble choices): those a user names ("string quartet") and the sets
// scenes and styles imply ("lullaby set", "rock set").
func Ensembles() []string {
	out := make([]string, 0, len(lex.ensembles))
	for n := range lex.ensembles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// KnownWords are every phrase the prompt parser understands (attributes,
// instruments, genres, moods, dynamics, tempo words, scenes, ensembles),
// normalized: the targets of the WordNet table (scripts/wordnet).
func KnownWords() []string {
	seen := map[string]bool{}
	add := func(s string) {
		if s = normalizePrompt(s); s != "" {
			seen[s] = true
		}
	}
	for p := range lex.phrases {
		add(p)
	}
	for w := range tempoTerms {
		add(w)
	}
	for w := range meterTerms {
		add(w)
	}
	for _, g := range genreTerms {
		add(g)
	}
	for _, t := range instrumentTerms {
		add(strings.Join(t.words, " "))
	}
	for _, m := range moodWords {
		add(m)
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}
